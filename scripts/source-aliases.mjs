// The libs' import aliases ('#executions/index.js', ...) are declared once, in package.json "imports",
// where Node resolves them to the built files in dist/. TypeScript maps those dist/ targets back to the
// sources by itself (rootDir/outDir); the tools that run or read the sources instead (Jest, jiti, the
// ESLint resolver) get the same aliases from here, pointed at the sources.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `{ '#executions': '<root>/libs/executions/src', ... }`: each alias prefix and the source folder it stands for. */
export function sourceAliases(root = ROOT) {
  const { imports = {} } = JSON.parse(readFileSync(`${root}/package.json`, 'utf8'));
  return Object.fromEntries(
    Object.entries(imports).map(([key, target]) => {
      const built = /^#([\w-]+)\/\*$/.exec(key);
      const source = /^\.\/dist\/(.+)\/\*$/.exec(target);
      if (!built || !source) throw new Error(`package.json imports: expected "#name/*": "./dist/<folder>/*", got "${key}": "${target}"`);
      return [`#${built[1]}`, `${root.replace(/\/$/, '')}/${source[1]}`];
    }),
  );
}
