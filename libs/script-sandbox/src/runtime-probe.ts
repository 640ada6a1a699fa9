import { execFile } from 'node:child_process';
import { runtimeStateOf, type RuntimeDeclaration, type StoredRuntime } from '#contracts/index.js';
import { findProgram, SYSTEM_BIN_DIRS } from './interpreters.js';
import { SCRIPT_VARIABLES } from './script-environment.js';

const PYTHON_PROBE_TIMEOUT_MS = 5_000;
/**
 * Looks each module up with importlib.util.find_spec without importing it (seed 004's rule). A dotted name is looked
 * up by its top-level package: find_spec of a submodule imports its parents, which would run their code.
 */
const FIND_SPECS = [
  'import importlib.util, json, sys',
  'found = {}',
  'for name in sys.argv[1:]:',
  '    try:',
  "        found[name] = importlib.util.find_spec(name.split('.')[0]) is not None",
  '    except Exception:',
  '        found[name] = False',
  'print(json.dumps(found))',
].join('\n');

/**
 * Seed 004's runtime probes, as a script tool would find things in the script sandbox: a binary among the sandbox's
 * programs (SYSTEM_BIN_DIRS, under /usr, which is all the sandbox mounts), an environment variable among those every
 * script run gets (nothing of the host's environment reaches a script, so nothing of it is reported either), a Python
 * module through the sandbox's python3 in isolated mode. Runs no script of the package and installs nothing.
 */
export async function probeRuntimes(declared: readonly RuntimeDeclaration[]): Promise<StoredRuntime[]> {
  const modules = declared.filter((runtime) => runtime.type === 'python_package').map((runtime) => runtime.target);
  const pythonFound = modules.length > 0 ? await findPythonModules(modules) : {};
  return Promise.all(
    declared.map(async (runtime) => {
      let found: boolean;
      if (runtime.type === 'binary') found = (await findProgram(runtime.target, '/usr')) !== null;
      else if (runtime.type === 'env_var') found = SCRIPT_VARIABLES.has(runtime.target);
      else found = pythonFound[runtime.target] === true;
      return { ...runtime, state: runtimeStateOf(found, runtime.optional) };
    }),
  );
}

/** Which modules python3 finds; every one missing when there is no python3 or it does not answer in time. */
async function findPythonModules(modules: string[]): Promise<Record<string, boolean>> {
  const python = await findProgram('python3', '/usr');
  if (python === null) return {};
  return new Promise((resolve) => {
    execFile(
      python,
      // -I: isolated (no PYTHON* variables, no user site, not the working directory on sys.path); -B: no bytecode written.
      ['-I', '-B', '-c', FIND_SPECS, ...modules],
      { cwd: '/', env: { PATH: SYSTEM_BIN_DIRS.join(':'), LANG: 'C.UTF-8' }, timeout: PYTHON_PROBE_TIMEOUT_MS, maxBuffer: 64 * 1024 },
      (error, stdout) => {
        if (error) return resolve({});
        try {
          const parsed: unknown = JSON.parse(stdout);
          resolve(parsed !== null && typeof parsed === 'object' ? (parsed as Record<string, boolean>) : {});
        } catch {
          resolve({});
        }
      },
    );
  });
}
