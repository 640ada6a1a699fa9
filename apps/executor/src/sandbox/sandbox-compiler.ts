/**
 * Entry of the executor's compiler process (trusted, not sandboxed, short-lived): transpiles the
 * runtime a sandbox process loads (the SDK, the loader's scope entry) and a package's TypeScript with
 * SWC into directories a sandbox reads, so that sandbox processes never load a compiler. Nothing here
 * evaluates package code: package files are only parsed and transpiled.
 *
 * Argument (JSON): { runtimeDir?: string, packageDir?: string, outDir?: string }.
 */
import { mkdir } from 'node:fs/promises';
import { readPackageDir } from '#package-store/index.js';
import { PackageModuleRuntime } from '#skill-loader/module-runtime.js';

const request = JSON.parse(process.argv[2] ?? '{}') as { runtimeDir?: string; packageDir?: string; outDir?: string };
let written = 0;
if (request.runtimeDir) {
  await mkdir(request.runtimeDir, { recursive: true });
  // Loading the SDK and opening a scope records every module the sandbox's runtime transpiles.
  new PackageModuleRuntime({ transpiler: 'swc', recordTo: request.runtimeDir }).openScope();
}
if (request.packageDir && request.outDir) {
  await mkdir(request.outDir, { recursive: true });
  const files = await readPackageDir(request.packageDir);
  written = new PackageModuleRuntime({ transpiler: 'swc' }).precompilePackage(files, request.packageDir, request.outDir);
}
process.stdout.write(JSON.stringify({ written }));
