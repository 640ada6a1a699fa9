import { sourceAliases } from './scripts/source-aliases.mjs';

// Jest runs in native ESM mode (NestJS 12 packages are ESM-only); SWC transpiles TypeScript.
const swc = {
  jsc: {
    parser: { syntax: 'typescript', decorators: true },
    transform: { legacyDecorator: true, decoratorMetadata: true },
    target: 'es2023',
  },
  module: { type: 'es6' },
};

export default {
  testEnvironment: 'node',
  extensionsToTreatAsEsm: ['.ts'],
  transform: {
    // @fastify/static (CommonJS, used by the OpenAPI UI) requires the ESM-only content-disposition;
    // Node 20 allows that natively but Jest's own loader does not, so that one package is compiled to CJS.
    '/node_modules/content-disposition/.+\\.js$': ['@swc/jest', { module: { type: 'commonjs' } }],
    '^.+\\.ts$': ['@swc/jest', swc],
  },
  transformIgnorePatterns: ['/node_modules/(?!content-disposition/)'],
  moduleNameMapper: {
    '^@skill-registry/sdk$': '<rootDir>/libs/skill-sdk/src/index.ts',
    '^@skill-registry/sdk/testing$': '<rootDir>/libs/skill-sdk/src/testing.ts',
    '^(\\.{1,2}/.*)\\.js$': '$1',
    // The libs' aliases (package.json "imports" point at dist/; the suites run the sources).
    ...Object.fromEntries(Object.entries(sourceAliases()).map(([alias, folder]) => [`^${alias}/(.*)\\.js$`, `${folder}/$1`])),
  },
  testMatch: ['<rootDir>/**/*.spec.ts', '<rootDir>/test/**/*.int-spec.ts', '<rootDir>/test/**/*.e2e-spec.ts'],
  globalSetup: '<rootDir>/test/support/global-setup.mjs',
  setupFiles: ['<rootDir>/test/support/fast-check-seed.mjs'],
  globalTeardown: '<rootDir>/test/support/global-teardown.mjs',
  testTimeout: 60000,
  // Child processes and sockets are closed in afterAll hooks; if a failing beforeAll leaves one behind,
  // the run must still end (CI has a hard time limit) rather than wait forever.
  forceExit: true,
  // One test file at a time (two cores; the suites start processes of their own), in a worker process that is
  // replaced once it holds more than this after a file: Jest's ESM module registries (--experimental-vm-modules)
  // are not all collected between files, and one process for the whole suite ran out of heap (4 GB) in CI.
  maxWorkers: 1,
  workerIdleMemoryLimit: '1536MB',
  // Fixture packages carry handler.spec.ts files as part of the package layout; they are data, not suites.
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '/test/fixtures/'],
};
