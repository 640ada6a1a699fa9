// The console's build (`npm run build -w apps/console`; scripts/build-if-changed.mjs runs it when its inputs
// change): the registry's OpenAPI document, written from the built registry without a database
// (write-document-cli), typed by openapi-typescript into src/api/openapi.gen.ts; then the console is
// type-checked and bundled by Vite into dist/console. Needs the registry built first (dist/apps).
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const bin = (name) => path.join(root, 'node_modules/.bin', name);
const documentPath = path.join(root, 'dist/openapi-console.json');

function step(command, args) {
  const result = spawnSync(command, args, { cwd: root, stdio: 'inherit' });
  if (result.status !== 0) {
    console.error(`console build: ${path.basename(command)} ${args.join(' ')} failed (${result.status ?? result.signal})`);
    process.exit(1);
  }
}

// `--types` or `--bundle` runs one half (scripts/build-if-changed.mjs runs them as two steps, so that a change of
// the registry that leaves its document as it was does not bundle the console again); neither runs both.
const only = process.argv[2];
if (only !== '--bundle') {
  step(process.execPath, [path.join(root, 'dist/apps/registry/src/openapi/write-document-cli.js'), documentPath]);
  step(bin('openapi-typescript'), [documentPath, '-o', path.join(here, 'src/api/openapi.gen.ts'), '--silent']);
}
if (only !== '--types') {
  step(bin('tsc'), ['-p', path.join(here, 'tsconfig.json')]);
  step(bin('vite'), ['build', '--config', path.join(here, 'vite.config.ts'), '--logLevel', 'warn']);
}
