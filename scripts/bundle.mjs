// The services' start-up bundles: each process (registry, executor, the tool adapters) built from its compiled entry
// (dist/apps/…/main.js, so after tsc) into one ES module, dist/bundle/<name>.js (scripts/service-entries.mjs), which
// is what npm start, the Dockerfiles, the tests' processes, the benches and the drills run. Node then reads and
// compiles one file instead of resolving and loading ~2,500 modules one by one, which was half of the registry's
// start-up (docs/benchmarks.md, Start-up). esbuild does the work; this file only says what to leave out:
// - packages that read files next to their own code or load native addons at run time (their reads would resolve
//   from dist/bundle/): they stay in node_modules and are imported from there as before;
// - optional peers of the frameworks that are not installed (Nest's other transports, class-validator, …): left as
//   imports that fail at run time exactly where they failed before, inside the frameworks' own optional loads; any
//   other import that does not resolve fails the build.
// The handler sandbox's processes (the sandbox host, the compiler) are not bundled: they run from dist/libs, staged
// by libs/handler-sandbox as before. Usage: node scripts/bundle.mjs
import { build } from 'esbuild';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { dropNeedlessNameCalls } from './bundle-names.mjs';
import { SERVICE_SOURCES } from './service-entries.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Kept in node_modules: each reads files relative to its own code (gRPC's protos, Swagger UI's assets, jiti's
 * lazily loaded parts, recheck's worker) or loads a native addon or program (SWC, msgpackr's extractor, recheck's).
 */
const READ_BESIDE_THEIR_CODE = [
  '@grpc/grpc-js',
  '@grpc/proto-loader',
  '@grpc/reflection',
  'swagger-ui-dist',
  '@swc/core',
  'jiti',
  'msgpackr-extract',
  'recheck',
];

/**
 * Optional peers of the installed packages that are not installed themselves (Nest's other transports and
 * validators, pg's native binding, BullMQ's Valkey GLIDE client): left as imports, which fail at run time exactly where
 * they failed before, inside the packages' own optional loads. Any other import that does not resolve fails the build
 * (add it here only when it is such an optional peer). Named, not found by a resolver plugin: the plugin's round trip
 * per import cost a third of the build.
 */
const NOT_INSTALLED_OPTIONAL_PEERS = [
  '@fastify/multipart',
  '@fastify/view',
  '@nats-io/transport-node',
  '@nestjs/platform-express',
  '@nestjs/websockets/socket-module.js',
  '@valkey/valkey-glide',
  'amqp-connection-manager',
  'class-transformer',
  'class-validator',
  'kafkajs',
  'mqtt',
  'pg-native',
];

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
    external: [...READ_BESIDE_THEIR_CODE, ...NOT_INSTALLED_OPTIONAL_PEERS],
    banner: { js: BANNER },
    keepNames: true, // Nest and the logs use class and function names (the needless `__name` calls dropped below)
    // No source maps: nothing runs with --enable-source-maps, and writing them took a quarter of the build. The
    // bundle keeps each module's path in a comment above its code, and keepNames its functions' names.
    logLevel: 'warning',
  });
  for (const service of Object.keys(SERVICE_SOURCES)) {
    const file = path.join(outdir, `${service}.js`);
    writeFileSync(file, dropNeedlessNameCalls(readFileSync(file, 'utf8')).code);
  }
}

const started = performance.now();
await bundleAll();
console.log(`bundle: ${Object.keys(SERVICE_SOURCES).length} services in ${((performance.now() - started) / 1000).toFixed(1)} s`);
