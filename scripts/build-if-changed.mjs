// `npm start`'s build: the steps of `npm run build` — prisma generate, build:sdk, tsc -p tsconfig.build.json, the
// services' bundles — and the console's (its API types, its bundle: apps/console/build.mjs),
// each run only when its inputs or its outputs changed since it last succeeded here. With nothing changed
// it hashes the sources (~0.1 s) instead of building (~13 s); with one file changed only the app step runs,
// incrementally (tsconfig.build.json's tsbuildinfo). Inputs and outputs are hashed by content, so outputs
// changed by anything else (a deleted dist/, a build of other sources) are noticed and rebuilt, and the app
// step compiles from scratch when a file it emitted is gone (tsc's incremental mode would not re-emit it).
// Usage: node scripts/build-if-changed.mjs [--force]   (--force: run every step)
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const STATE_FILE = path.join(root, 'node_modules/.cache/build-if-changed/state.json');
const STATE_VERSION = 1;
const TS_BUILD_INFO = 'dist/tsconfig.build.tsbuildinfo'; // tsconfig.build.json's tsBuildInfoFile
/** The console's API types, written by its build from the registry's OpenAPI document (an output, not an input). */
const CONSOLE_GENERATED = 'apps/console/src/api/openapi.gen.ts';
/** Never inputs: outputs, installed packages, caches, VCS. */
const SKIPPED_DIRS = new Set(['node_modules', 'dist', '.git', 'coverage', '.jiti-cache']);
/** What every step depends on: dependency and toolchain versions, the shared compiler options, this script. */
const TOOLCHAIN = ['package.json', 'package-lock.json', 'node_modules/.package-lock.json', 'tsconfig.json', 'scripts/build-if-changed.mjs'];

const steps = [
  {
    name: 'prisma generate',
    command: ['npm', ['run', '--silent', 'generate']],
    inputs: () => [...TOOLCHAIN, 'prisma/schema.prisma', 'prisma.config.ts'],
    outputs: ['libs/database/src/generated'],
  },
  {
    name: 'build:sdk',
    command: ['npm', ['run', '--silent', 'build:sdk']],
    inputs: () => [...TOOLCHAIN, 'libs/skill-sdk/tsconfig.json', 'libs/skill-sdk/package.json', ...filesUnder('libs/skill-sdk/src')],
    outputs: ['libs/skill-sdk/dist'],
  },
  {
    // The last step of "build" in package.json. It reads the SDK from its sources (tsconfig paths), not
    // its dist/, so it runs beside build:sdk; it needs the generated Prisma client, an input here.
    name: 'tsc -p tsconfig.build.json',
    command: [path.join(root, 'node_modules/.bin/tsc'), ['-p', 'tsconfig.build.json']],
    after: ['prisma generate'],
    // (apps/console is not compiled here: tsconfig.build.json leaves it out, its own steps below build it.)
    inputs: () => [
      ...TOOLCHAIN,
      'tsconfig.build.json',
      ...filesUnder('apps').filter((file) => !file.startsWith('apps/console/')),
      ...filesUnder('libs'),
    ],
    // What tsc emits (other files in dist/, e.g. openapi.json written by a test, are not its business).
    outputs: ['dist/apps', 'dist/libs', TS_BUILD_INFO],
    // tsc's incremental mode never re-emits an output that was deleted: when a file it left is gone
    // (or nothing is known of the last build), compile from scratch. Outputs rewritten by another tsc
    // run (npm run build) keep the tsbuildinfo that run wrote.
    beforeRun: ({ previous, outputsAsLeft, force }) => {
      const intact = outputsAsLeft || (previous?.files ?? []).every((file) => statSync(path.join(root, file), { throwIfNoEntry: false }));
      if (force || !previous?.files || !intact) rmSync(path.join(root, TS_BUILD_INFO), { force: true });
    },
    keepFileList: true,
  },
  {
    // The services' bundles (scripts/bundle.mjs): from what tsc emitted, so after it; the bundled packages' versions
    // are in the toolchain's lockfiles.
    name: 'bundle',
    command: [process.execPath, ['scripts/bundle.mjs']],
    after: ['tsc -p tsconfig.build.json'],
    inputs: () => [
      ...TOOLCHAIN,
      'scripts/bundle.mjs',
      'scripts/bundle-names.mjs',
      'scripts/service-entries.mjs',
      ...filesUnder('dist/apps'),
      ...filesUnder('dist/libs'),
    ],
    outputs: ['dist/bundle'],
  },
  {
    // The console's API types (apps/console/build.mjs --types): the registry's OpenAPI document, written from the
    // built registry (so after the app step), typed by openapi-typescript. Its inputs are what the document is made
    // of (the registry and the libs its views use); its output is an input of the bundle below, which therefore
    // runs only when the document (or the console) really changed.
    name: 'console api types',
    command: [process.execPath, ['apps/console/build.mjs', '--types']],
    after: ['tsc -p tsconfig.build.json'],
    inputs: () => [...TOOLCHAIN, 'apps/console/build.mjs', ...filesUnder('apps/registry'), ...filesUnder('libs')],
    outputs: [CONSOLE_GENERATED],
  },
  {
    // The browser console (apps/console/build.mjs --bundle): tsc, then Vite into dist/console.
    name: 'console',
    command: [process.execPath, ['apps/console/build.mjs', '--bundle']],
    after: ['console api types'],
    inputs: () => [...TOOLCHAIN, ...filesUnder('apps/console')],
    outputs: ['dist/console'],
  },
];

function entriesOf(relative) {
  try {
    return readdirSync(path.join(root, relative), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1));
  } catch {
    return [];
  }
}

function filesUnder(relative) {
  const files = [];
  const walk = (dir) => {
    for (const entry of entriesOf(dir)) {
      const child = `${dir}/${entry.name}`;
      if (entry.isDirectory() && !SKIPPED_DIRS.has(entry.name)) walk(child);
      else if (entry.isFile()) files.push(child);
    }
  };
  walk(relative);
  return files;
}

/** Content hash of the input files (a missing file hashes as missing). */
function hashInputs(files) {
  const hash = createHash('sha256');
  for (const file of [...new Set(files)].sort()) {
    hash.update(`${file}\0`);
    try {
      hash.update(readFileSync(path.join(root, file)));
    } catch {
      hash.update('\0missing');
    }
    hash.update('\0');
  }
  return hash.digest('hex');
}

/**
 * Fingerprint of the outputs (files or trees): path and content of every file, and the list of files;
 * the fingerprint is null when an output is missing or empty. By content, so a rebuild that writes the
 * same bytes (npm run build on unchanged sources) does not count as a change.
 */
function fingerprintOutputs(outputs) {
  const hash = createHash('sha256');
  const files = [];
  let complete = true;
  for (const output of outputs) {
    const before = files.length;
    const add = (relative) => {
      const info = statSync(path.join(root, relative), { throwIfNoEntry: false });
      if (info?.isDirectory()) for (const entry of entriesOf(relative)) add(`${relative}/${entry.name}`);
      else if (info?.isFile()) {
        hash
          .update(`${relative}\0`)
          .update(readFileSync(path.join(root, relative)))
          .update('\0');
        files.push(relative);
      }
    };
    add(output);
    if (files.length === before) complete = false;
  }
  return { fingerprint: complete ? hash.digest('hex') : null, files };
}

function readState() {
  try {
    const state = JSON.parse(readFileSync(STATE_FILE, 'utf8'));
    if (state.version === STATE_VERSION) return state;
  } catch {
    // none yet, or unreadable: build everything
  }
  return { version: STATE_VERSION, steps: {} };
}

function writeState(state) {
  mkdirSync(path.dirname(STATE_FILE), { recursive: true });
  writeFileSync(`${STATE_FILE}.tmp`, JSON.stringify(state, null, 2));
  renameSync(`${STATE_FILE}.tmp`, STATE_FILE); // never a half-written state
}

/** Runs a step's command; its output is printed when it ends (steps run side by side). */
function run(step) {
  return new Promise((resolve) => {
    const [command, args] = step.command;
    const child = spawn(command, args, { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    child.on('error', (error) => resolve({ ok: false, output: `${output}${error.message}\n`, code: error.code }));
    child.on('exit', (code, signal) => resolve({ ok: code === 0, output, code: signal ?? code }));
  });
}

const force = process.argv.includes('--force');
const started = performance.now();
const state = readState();
const done = new Map(); // step name → Promise<boolean>: it succeeded (or was up to date)
const ran = [];

async function runStep(step) {
  for (const dependency of step.after ?? []) if (!(await done.get(dependency))) return false;
  // Inputs are read before the step runs: an edit made while it runs is seen by the next start.
  const inputs = hashInputs(step.inputs());
  const { fingerprint } = fingerprintOutputs(step.outputs);
  const previous = state.steps[step.name];
  const inputsSame = previous?.inputs === inputs;
  const outputsAsLeft = fingerprint !== null && previous?.outputs === fingerprint;
  if (!force && inputsSame && outputsAsLeft) return true;
  const why = force ? 'forced' : !previous ? 'first build here' : !inputsSame ? 'sources changed' : 'outputs changed';
  step.beforeRun?.({ previous, outputsAsLeft, force });
  delete state.steps[step.name];
  const stepStarted = performance.now();
  const result = await run(step);
  if (result.output.trim()) process.stdout.write(result.output.endsWith('\n') ? result.output : `${result.output}\n`);
  const after = fingerprintOutputs(step.outputs);
  // After a failure (tsc still emits on type errors) the outputs are recorded, not the inputs: the next
  // start runs the step again, incrementally.
  state.steps[step.name] = {
    inputs: result.ok ? inputs : null,
    outputs: after.fingerprint,
    ...(step.keepFileList ? { files: after.files } : {}),
  };
  if (!result.ok) {
    console.error(`build: ${step.name} failed (${result.code})`);
    return false;
  }
  ran.push(`${step.name} (${why}) ${((performance.now() - stepStarted) / 1000).toFixed(1)} s`);
  return true;
}

for (const step of steps) done.set(step.name, runStep(step));
const succeeded = (await Promise.all(done.values())).every(Boolean);
writeState(state);
const seconds = ((performance.now() - started) / 1000).toFixed(1);
if (succeeded) console.log(ran.length === 0 ? `build: up to date (${seconds} s)` : `build: ${ran.join(', ')}; ${seconds} s`);
else process.exitCode = 1;
