import type { RuntimeDeclaration, RuntimeKind } from '#contracts/index.js';
import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { readSidecarYaml, sidecarEntries, sidecarFiles } from './sidecar-files.js';
import { isMapping } from './yaml-text.js';

const FILE = 'SKILL.md';
const MAX_RUNTIMES = 50;
const COMMON_KEYS = ['name', 'type', 'optional', 'feature_level', 'install_hint', 'guidance'];
/** Per kind: the key naming what is looked for, and the shape it must have (nothing a shell would read). */
const TARGETS: Record<RuntimeKind, { key: string; pattern: RegExp; example: string }> = {
  env_var: { key: 'env', pattern: /^[A-Za-z_][A-Za-z0-9_]*$/, example: 'env: HFS' },
  binary: { key: 'binary', pattern: /^[A-Za-z0-9_][A-Za-z0-9._+-]*$/, example: 'binary: usdcat' },
  python_package: { key: 'module', pattern: /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/, example: 'module: pxr' },
};

/**
 * Seed 004's optional adapter runtimes: `metadata.dcc-mcp.runtimes` inline, or naming a sibling runtimes.yaml. Each
 * entry names a probe (an environment variable, a program on PATH, a Python module) that registration runs without
 * executing any script of the package; nothing is installed.
 */
export async function readRuntimes(
  value: unknown,
  packageDir: string,
  files: readonly string[],
  issues: IssueList,
): Promise<RuntimeDeclaration[]> {
  if (value === undefined || value === null) return [];
  const entries: { entry: unknown; file: string; at: string }[] = [];
  if (typeof value === 'string') {
    for (const file of await sidecarFiles(value, 'runtimes', packageDir, files, issues)) {
      const document = await readSidecarYaml(packageDir, file, issues);
      entries.push(...sidecarEntries(document, 'runtimes', file, issues).map((found) => ({ ...found, file })));
    }
  } else if (Array.isArray(value)) {
    value.forEach((entry, index) => entries.push({ entry, file: FILE, at: toJsonPointer(['metadata', 'dcc-mcp', 'runtimes', index]) }));
  } else {
    issues.error(
      'definition',
      FILE,
      toJsonPointer(['metadata', 'dcc-mcp', 'runtimes']),
      `metadata.dcc-mcp.runtimes must be a list of runtimes or name a runtimes file; found ${describeValue(value)}`,
      'Write runtimes: runtimes.yaml, or a list of { name, type, ... } entries.',
    );
    return [];
  }
  const runtimes: RuntimeDeclaration[] = [];
  for (const { entry, file, at } of entries) {
    const runtime = checkRuntime(entry, file, at, issues);
    if (runtime === null) continue;
    if (runtimes.some((other) => other.name === runtime.name)) {
      issues.error(
        'definition',
        file,
        `${at}/name`,
        `runtime '${runtime.name}' is declared more than once`,
        'Give every runtime its own name.',
      );
      continue;
    }
    if (runtimes.length === MAX_RUNTIMES) {
      issues.error('policy', file, at, `more than ${MAX_RUNTIMES} runtimes`, `Declare at most ${MAX_RUNTIMES} runtimes.`);
      break;
    }
    runtimes.push(runtime);
  }
  return runtimes;
}

function checkRuntime(raw: unknown, file: string, at: string, issues: IssueList): RuntimeDeclaration | null {
  if (!isMapping(raw) || typeof raw.name !== 'string' || raw.name.trim() === '') {
    issues.error(
      'definition',
      file,
      at,
      `a runtime needs a name; found ${describeValue(raw)}`,
      'Write "- name: usdcat" with its type and target.',
    );
    return null;
  }
  const name = raw.name;
  const kind = raw.type;
  if (typeof kind !== 'string' || !Object.hasOwn(TARGETS, kind)) {
    issues.error(
      'definition',
      file,
      `${at}/type`,
      `runtime '${name}': type must be one of ${Object.keys(TARGETS).join(', ')}; found ${describeValue(kind)}`,
      'Probes look for an environment variable, a program on PATH, or a Python module.',
    );
    return null;
  }
  const target = TARGETS[kind as RuntimeKind];
  const known = [...COMMON_KEYS, target.key, ...(kind === 'python_package' ? ['package'] : [])];
  for (const key of Object.keys(raw)) {
    if (known.includes(key)) continue;
    const suggestion = closest(key, known);
    issues.warning(
      'definition',
      file,
      `${at}/${key}`,
      `runtime '${name}': key '${key}' is not read (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${known.join(', ')}.`,
    );
  }
  // A python_package names its module, or (as seed 004 allows) only its package when the two are spelt alike.
  const written =
    raw[target.key] ?? (kind === 'python_package' && typeof raw.package === 'string' ? raw.package.replace(/-/g, '_') : undefined);
  if (typeof written !== 'string' || !target.pattern.test(written)) {
    issues.error(
      'definition',
      file,
      `${at}/${target.key}`,
      `runtime '${name}': ${target.key} must be a name matching ${target.pattern.source}; found ${describeValue(written)}`,
      `Write e.g. ${target.example}.`,
    );
    return null;
  }
  if (raw.optional !== undefined && typeof raw.optional !== 'boolean') {
    issues.error(
      'definition',
      file,
      `${at}/optional`,
      `runtime '${name}': optional must be true or false; found ${describeValue(raw.optional)}`,
      'Write optional: true.',
    );
  }
  const text = (key: string) => (typeof raw[key] === 'string' && raw[key] !== '' ? (raw[key] as string) : null);
  return {
    name,
    type: kind as RuntimeKind,
    target: written,
    package: kind === 'python_package' ? text('package') : null,
    optional: raw.optional === true,
    feature_level: text('feature_level'),
    hint: text('install_hint') ?? text('guidance'),
  };
}
