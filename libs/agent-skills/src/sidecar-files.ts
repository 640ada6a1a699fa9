import { readFile } from 'node:fs/promises';
import { join, posix } from 'node:path';
import picomatch from 'picomatch';
import { describeValue } from '#skill-loader/describe.js';
import { toJsonPointer, type IssueList } from '#skill-loader/issues.js';
import { describePathProblem, resolvePackagePath } from './package-paths.js';
import { parseYamlText } from './yaml-text.js';

const FILE = 'SKILL.md';
/** A sidecar file larger than this is refused rather than parsed (prompts and workflows are small text). */
const MAX_SIDECAR_BYTES = 256 * 1024;

/** The sidecars whose files are read, each with the suffix its one-entry-per-file files carry (seed 004's layout). */
export type SidecarKind = 'prompts' | 'resources' | 'workflows' | 'runtimes';
const FILE_SUFFIX: Record<SidecarKind, string> = {
  prompts: '.prompt.yaml',
  resources: '.resource.yaml',
  workflows: '.workflow.yaml',
  runtimes: '.runtime.yaml',
};

/**
 * The package files a `metadata.dcc-mcp.<kind>` reference names (seed 004: "sibling .yaml file, directory, or
 * glob"): one YAML file; a directory's `*.<kind>.yaml` files (or, with none of those, its `.yaml`/`.yml` files),
 * at any depth; or the files a glob such as `prompts/*.prompt.yaml` matches. Sorted, package-relative; a reference
 * that names nothing is an error, since the author expects something there.
 */
export async function sidecarFiles(
  value: string,
  kind: SidecarKind,
  packageDir: string,
  files: readonly string[],
  issues: IssueList,
): Promise<string[]> {
  const field = `metadata.dcc-mcp.${kind}`;
  const path = toJsonPointer(['metadata', 'dcc-mcp', kind]);
  let matched: string[];
  if (/[*?[{]/.test(value)) {
    const pattern = posix.normalize(value.trim().replace(/\\/g, '/')).replace(/^(\.\/)+/, '');
    if (pattern.startsWith('/') || pattern.startsWith('../')) {
      issues.error('policy', FILE, path, `${field} '${value}' points outside the package`, 'Write a glob relative to the package root.');
      return [];
    }
    const isMatch = picomatch(pattern, { dot: false });
    matched = files.filter((file) => isMatch(file));
  } else {
    const resolved = await resolvePackagePath(packageDir, value);
    if (!resolved.ok) {
      const { message, hint } = describePathProblem(field, resolved);
      issues.error(resolved.problem === 'missing' ? 'files' : 'policy', FILE, path, message, hint);
      return [];
    }
    if (resolved.kind === 'file') return [resolved.path];
    const inside = files.filter((file) => file.startsWith(`${resolved.path}/`));
    const own = inside.filter((file) => file.endsWith(FILE_SUFFIX[kind]));
    matched = own.length > 0 ? own : inside.filter((file) => /\.ya?ml$/.test(file));
  }
  if (matched.length === 0) {
    issues.error(
      'files',
      FILE,
      path,
      `${field} '${value}' names no file of the package`,
      `Add the files (e.g. ${kind}/example${FILE_SUFFIX[kind]}) or correct the reference.`,
    );
  }
  return [...matched].sort();
}

/** One sidecar YAML file parsed; undefined after an issue was recorded (unreadable, too large, not YAML). */
export async function readSidecarYaml(packageDir: string, file: string, issues: IssueList): Promise<unknown> {
  let bytes: Buffer;
  try {
    bytes = await readFile(join(packageDir, file));
  } catch (cause) {
    issues.error('files', file, '', `${file} cannot be read: ${String(cause)}`, 'Check that the file exists and is readable.');
    return undefined;
  }
  if (bytes.length > MAX_SIDECAR_BYTES) {
    issues.error(
      'files',
      file,
      '',
      `${file} is ${bytes.length} bytes; a sidecar file may have at most ${MAX_SIDECAR_BYTES}`,
      'Split it into several files (one per entry).',
    );
    return undefined;
  }
  const parsed = parseYamlText(bytes.toString('utf8'), file, 0, issues);
  return parsed.ok ? parsed.value : undefined;
}

/**
 * The entries of a sidecar file: a top-level list, a `<kind>:` list, or one entry as a mapping (seed 004 allows all
 * three for resources; prompts and workflows files use the same rule). Each comes with the JSON pointer it sits at.
 */
export function sidecarEntries(document: unknown, kind: SidecarKind, file: string, issues: IssueList): { entry: unknown; at: string }[] {
  if (document === undefined || document === null) return [];
  if (Array.isArray(document)) return document.map((entry, index) => ({ entry, at: toJsonPointer([index]) }));
  if (typeof document === 'object') {
    const listed = (document as Record<string, unknown>)[kind];
    if (listed === undefined) return [{ entry: document, at: '' }];
    if (Array.isArray(listed)) return listed.map((entry, index) => ({ entry, at: toJsonPointer([kind, index]) }));
  }
  issues.error(
    'definition',
    file,
    '',
    `${file} must hold one ${kind.slice(0, -1)}, a list of them, or a ${kind}: list; found ${describeValue(document)}`,
    `Write "${kind}:" followed by "- name: ..." entries.`,
  );
  return [];
}
