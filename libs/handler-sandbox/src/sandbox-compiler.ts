/**
 * Entry of the executor's compiler process (trusted, not sandboxed; started on demand and ended when
 * idle): transpiles the runtime a sandbox process loads (the SDK, the loader's scope entry) and a
 * package's TypeScript with SWC into directories a sandbox reads, so that sandbox processes never load
 * a compiler. Nothing here evaluates package code: package files are only parsed and transpiled.
 *
 * Requests arrive over the IPC channel: { id, runtimeDir } or { id, packageDir, outDir }; each is
 * answered { id, ok, written?, error? }.
 */
import { mkdir } from 'node:fs/promises';
import { readPackageDir } from '#package-store/index.js';
import { PackageModuleRuntime } from '#skill-loader/module-runtime.js';

interface CompileRequest {
  id: number;
  runtimeDir?: string;
  packageDir?: string;
  outDir?: string;
}

let compiler: PackageModuleRuntime | null = null;

async function serve(request: CompileRequest): Promise<number> {
  if (request.runtimeDir) {
    PackageModuleRuntime.precompileRuntime(request.runtimeDir);
    return 0;
  }
  if (!request.packageDir || !request.outDir) throw new Error('a request names a runtime directory, or a package and an output directory');
  await mkdir(request.outDir, { recursive: true });
  compiler ??= new PackageModuleRuntime({ transpiler: 'swc' });
  return compiler.precompilePackage(await readPackageDir(request.packageDir), request.packageDir, request.outDir);
}

process.on('message', (request: CompileRequest) => {
  serve(request).then(
    (written) => process.send?.({ id: request.id, ok: true, written }),
    (error: Error) => process.send?.({ id: request.id, ok: false, error: error.message }),
  );
});
process.on('disconnect', () => process.exit(0));
