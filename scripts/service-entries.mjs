// What each service process runs, in one place: npm start (run-all.mjs), the Dockerfiles (a test checks), the tests'
// processes, the benches and the drills start the services from their bundles (scripts/bundle.mjs, part of
// `npm run build`), each one file built from the compiled entry named here.
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Service → its compiled entry (relative to the root), the input of its bundle. */
export const SERVICE_SOURCES = {
  registry: 'dist/apps/registry/src/main.js',
  executor: 'dist/apps/executor/src/main.js',
  spice: 'dist/apps/adapters/spice/src/main.js',
  calculix: 'dist/apps/adapters/calculix/src/main.js',
  gmsh: 'dist/apps/adapters/gmsh/src/main.js',
  kicad: 'dist/apps/adapters/kicad/src/main.js',
};

/** A service's bundle, relative to the root (as the Dockerfiles name it). */
export function serviceBundle(service) {
  if (!(service in SERVICE_SOURCES)) throw new Error(`no such service: ${service}`);
  return `dist/bundle/${service}.js`;
}

/** The absolute path of a service's bundle in this checkout. */
export function serviceEntry(service) {
  return path.join(root, serviceBundle(service));
}
