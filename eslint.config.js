import js from '@eslint/js';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import reactHooks from 'eslint-plugin-react-hooks';
import tseslint from 'typescript-eslint';
import { featureFolders } from './scripts/eslint-feature-folders.mjs';
import { sourceAliases } from './scripts/source-aliases.mjs';

/** The apps (apps/<name>): each stands on libs only. */
const APPS = ['registry', 'executor', 'cli', 'adapters', 'console'];

/** Infrastructure clients: only adapters (repositories, ports' implementations, modules' wiring) import them. */
const INFRASTRUCTURE = ['pg', 'ioredis', 'bullmq', '@prisma/client'];

/** no-restricted-syntax entries for every import or re-export whose source matches `pattern` (a regex source). */
function relativeLibImports(pattern) {
  return ['ImportDeclaration', 'ExportNamedDeclaration', 'ExportAllDeclaration', 'ImportExpression'].map((node) => ({
    selector: `${node}[source.value=/${pattern}/]`,
    message: "import a lib through its alias ('#<lib>/<file>.js'), not a relative path",
  }));
}

/** A relative import into libs/ (other than the SDK's package). */
const INTO_LIBS = relativeLibImports(/^\.{1,2}\/(.*\/)?libs\/(?!skill-sdk\/)/.source);

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      '**/dist/',
      'coverage/',
      'libs/database/src/generated/',
      'test/fixtures/',
      'test/e2e/console-screenshots/',
      'apps/console/src/api/openapi.gen.ts',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    languageOptions: {
      globals: {
        console: 'readonly',
        process: 'readonly',
        Buffer: 'readonly',
        URL: 'readonly',
        fetch: 'readonly',
        performance: 'readonly',
        setTimeout: 'readonly',
        clearTimeout: 'readonly',
      },
    },
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
    },
  },
  {
    // The walls between the parts of the house (style.md): libs never import apps, no app imports another
    // (registry, executor, CLI and adapters stand on libs), there are no import cycles, and no two folders of
    // one src/ import each other (scripts/eslint-feature-folders.mjs).
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts'],
    plugins: { 'import-x': importX, 'feature-folders': featureFolders },
    settings: {
      'import-x/resolver-next': [
        createTypeScriptImportResolver({
          project: './tsconfig.json',
          // The libs' aliases, resolved to their sources (as TypeScript does) so the walls see real paths.
          alias: Object.fromEntries(Object.entries(sourceAliases()).map(([alias, folder]) => [alias, [folder]])),
        }),
      ],
      // So that import-x parses the TypeScript files it follows (without it no-cycle sees no edges).
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts'] },
      'import-x/extensions': ['.ts', '.js'],
    },
    rules: {
      'import-x/no-restricted-paths': [
        'error',
        {
          zones: [
            { target: './libs', from: './apps', message: 'libs never import apps: move what both need into a lib' },
            // No app imports another: what two apps share is a lib (the handler sandbox is libs/handler-sandbox).
            ...APPS.map((app) => ({
              target: `./apps/${app}`,
              from: APPS.filter((other) => other !== app).map((other) => `./apps/${other}`),
              message: `apps/${app} imports no other app: move what both need into a lib`,
            })),
          ],
        },
      ],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
      'feature-folders/no-mutual-folders': 'error',
    },
  },
  {
    // BullMQ is wrapped once (libs/executions/src/queue/: ExecutionQueue, ExecutionConsumer); ioredis only where
    // a connection is made (redis-connection.ts: one server or a Redis Cluster). Use-cases talk to those classes.
    files: ['apps/**/*.ts', 'libs/**/*.ts'],
    ignores: ['**/*.spec.ts', 'libs/executions/src/queue/**', 'libs/executions/src/redis-connection.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: ['bullmq', 'ioredis'].map((name) => ({
            name,
            message: 'BullMQ and raw Redis clients stay in libs/executions/src/queue/ and the connection adapters',
          })),
        },
      ],
    },
  },
  {
    // Controllers are thin: they call use-cases, never the database or the queue themselves. (After the
    // block above: for a controller this list replaces that one and includes it.)
    files: ['apps/**/*.controller.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          paths: INFRASTRUCTURE.map((name) => ({ name, message: 'controllers call use-cases; infrastructure stays behind a port' })),
          patterns: [
            { group: ['**/generated/prisma/**', '**/libs/database/**'], message: 'controllers never reach the database' },
            // (An alias as a regex: in the glob syntax above a leading '#' would start a comment.)
            { regex: '^#database/', message: 'controllers never reach the database' },
          ],
        },
      ],
    },
  },
  {
    // A skill package imports only the SDK (and its own files and Node's built-ins).
    files: ['skills/**/*.ts', 'test/fixtures/**/*.ts'],
    rules: {
      'no-restricted-imports': [
        'error',
        {
          patterns: [
            {
              regex: '^(?!node:|\\.{1,2}/|@skill-registry/sdk(/testing)?$|@jest/globals$)',
              message: 'skills import only @skill-registry/sdk',
            },
          ],
        },
      ],
    },
  },
  {
    // Another lib is reached through its alias (#<lib>/..., see scripts/source-aliases.mjs), never by a
    // relative path into it: from an app, a test or a bench ('../../libs/x/src/...') nor from another lib
    // ('../../x/src/...').
    files: ['apps/**/*.ts', 'libs/**/*.ts', 'test/**/*.ts', 'bench/**/*.ts', 'drills/**/*.mjs', 'bench/**/*.mjs', 'scripts/**/*.mjs'],
    ignores: ['libs/skill-sdk/**'],
    rules: { 'no-restricted-syntax': ['error', ...INTO_LIBS] },
  },
  {
    files: ['libs/**/*.ts'],
    ignores: ['libs/skill-sdk/**'],
    rules: {
      'no-restricted-syntax': [
        'error',
        // The list above again: a later block's options replace an earlier one's.
        ...INTO_LIBS,
        ...relativeLibImports(/^(\.\.\/){2,}[\w-]+\/src\//.source),
      ],
    },
  },
  {
    // The console (apps/console) runs in a browser: React's rules of hooks, and the browser's globals.
    files: ['apps/console/**/*.{ts,tsx}'],
    plugins: { 'react-hooks': reactHooks },
    languageOptions: {
      globals: { window: 'readonly', document: 'readonly', navigator: 'readonly', sessionStorage: 'readonly', FormData: 'readonly' },
    },
    rules: reactHooks.configs['recommended-latest'].rules,
  },
  {
    // Tests read loosely typed JSON bodies.
    files: ['**/*.spec.ts', 'test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
