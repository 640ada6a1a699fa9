// The services' start-up bundles: each process (registry, executor, the tool adapters) built from its compiled entry
// (dist/apps/…/main.js, so after tsc) into one ES module, dist/bundle/<name>.js (scripts/service-entries.mjs), which is
// what npm start, the Dockerfiles, the tests' processes, the benches and the drills run. Node then reads and compiles one file instead of
// resolving and loading ~2,500 modules one by one, which was half of the registry's start-up (docs/benchmarks.md,
// Start-up). esbuild does the work; this file only says what to leave out:
// - packages that read files next to their own code or load native addons at run time (their reads would resolve
//   from dist/bundle/): they stay in node_modules and are imported from there as before;
// - optional peers of the frameworks that are not installed (Nest's other transports, class-validator, …): left as
//   imports that fail at run time exactly where they failed before, inside the frameworks' own optional loads.
// The handler sandbox's processes (the sandbox host, the compiler) are not bundled: they run from dist/libs, staged
// by libs/handler-sandbox as before. Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVICE_SOURCES } from './service-entries.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Kept in node_modules: each reads files relative to its own code (gRPC's protos, Swagger UI's assets, jiti's
 * lazily loaded parts) or loads a native addon (SWC, msgpackr's extractor).
 */
const EXTERNAL = ['@grpc/grpc-js', '@grpc/proto-loader', '@grpc/reflection', 'swagger-ui-dist', '@swc/core', 'jiti', 'msgpackr-extract'];

/** Optional peers that are not installed stay imports (they fail at run time where they always did), not build errors. */
const optionalPeers = {
  name: 'optional-peers',
  setup(builder) {
    builder.onResolve({ filter: /^[^./#]/ }, async (args) => {
      if (args.pluginData === 'resolving') return undefined;
      const resolved = await builder.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: 'resolving',
      });
      return resolved.errors.length > 0 ? { path: args.path, external: true } : resolved;
    });
  },
};

// CommonJS code in an ES module bundle: `require` for the externals, `__filename`/`__dirname` defined (as the bundle's;
// the code that uses them here only does so on paths the services never take, e.g. pino's transports).
const BANNER = [
  "import { createRequire as __bundleCreateRequire } from 'node:module';",
  "import { dirname as __bundleDirname } from 'node:path';",
  "import { fileURLToPath as __bundleFileURLToPath } from 'node:url';",
  'const require = __bundleCreateRequire(import.meta.url);',
  'const __filename = __bundleFileURLToPath(import.meta.url);',
  'const __dirname = __bundleDirname(__filename);',
].join('\n');

async function bundleAll() {
  const outdir = path.join(root, 'dist/bundle');
  rmSync(outdir, { recursive: true, force: true });
  await build({
    absWorkingDir: root,
    entryPoints: Object.entries(SERVICE_SOURCES).map(([out, entry]) => ({ in: entry, out })),
    outdir,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    external: EXTERNAL,
    plugins: [optionalPeers],
    banner: { js: BANNER },
    keepNames: true, // Nest and the logs use class and function names
    sourcemap: 'linked',
    logLevel: 'warning',
  });
}

const started = performance.now();
await bundleAll();
console.log(`bundle: ${Object.keys(SERVICE_SOURCES).length} services in ${((performance.now() - started) / 1000).toFixed(1)} s`);
