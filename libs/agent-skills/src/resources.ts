import { stat } from 'node:fs/promises';
import { join, posix } from 'node:path';
import type { StoredResource } from '#contracts/index.js';
import { mediaTypeOf } from '#package-store/media-type.js';
import { closest } from '#skill-loader/definition-messages.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { describePathProblem, resolvePackagePath } from './package-paths.js';
import { readSidecarYaml, sidecarEntries } from './sidecar-files.js';
import { isMapping } from './yaml-text.js';

const RESOURCE_KEYS = ['uri', 'name', 'title', 'description', 'mimeType', 'mime_type', 'source'];
const MAX_RESOURCES = 200;
/**
 * Schemes a package may not take: the registry's own resources (`skill://`, SEP-2640; `twin://`, the digital twin),
 * and schemes that claim a place the registry does not serve the bytes from.
 */
const RESERVED_SCHEMES = ['skill:', 'twin:', 'file:', 'http:', 'https:', 'data:', 'javascript:'];

/**
 * The static resources of the files `metadata.dcc-mcp.resources` names (seed 004, "Declaring static MCP
 * resources"): each `uri`, `name`, `mimeType`, `description` and `source: { type: file, path }`, the path relative
 * to the YAML file. resources/read returns that file of the stored package.
 */
export async function readResources(files: string[], packageDir: string, issues: IssueList): Promise<StoredResource[]> {
  const resources: StoredResource[] = [];
  for (const file of files) {
    const document = await readSidecarYaml(packageDir, file, issues);
    for (const { entry, at } of sidecarEntries(document, 'resources', file, issues)) {
      const resource = await checkResource(entry, file, at, packageDir, issues);
      if (resource === null) continue;
      if (resources.some((other) => other.uri === resource.uri)) {
        issues.error(
          'definition',
          file,
          `${at}/uri`,
          `resource ${resource.uri} is declared more than once`,
          'Give every resource its own uri.',
        );
        continue;
      }
      if (resources.length === MAX_RESOURCES) {
        issues.error('policy', file, at, `more than ${MAX_RESOURCES} resources`, `Keep at most ${MAX_RESOURCES} resources in one package.`);
        return resources;
      }
      resources.push(resource);
    }
  }
  return resources;
}

async function checkResource(
  raw: unknown,
  file: string,
  at: string,
  packageDir: string,
  issues: IssueList,
): Promise<StoredResource | null> {
  if (!isMapping(raw)) {
    issues.error(
      'definition',
      file,
      at,
      `a resource must be a mapping; found ${describeValue(raw)}`,
      'Write "- uri: ..." with name and source.',
    );
    return null;
  }
  const uri = checkUri(raw.uri, file, `${at}/uri`, issues);
  if (uri === null) return null;
  for (const key of Object.keys(raw)) {
    if (RESOURCE_KEYS.includes(key)) continue;
    const suggestion = closest(key, RESOURCE_KEYS);
    issues.warning(
      'definition',
      file,
      `${at}/${key}`,
      `resource ${uri}: key '${key}' is not read (ignored)`,
      suggestion ? `Did you mean '${suggestion}'?` : `Known keys: ${RESOURCE_KEYS.join(', ')}.`,
    );
  }
  const source = raw.source;
  if (!isMapping(source) || source.type !== 'file' || typeof source.path !== 'string' || source.path.trim() === '') {
    const other = isMapping(source) && typeof source.type === 'string' && source.type !== 'file';
    issues.error(
      'definition',
      file,
      `${at}/source`,
      other
        ? `resource ${uri}: source type '${String(source.type)}' is not supported here (only file)`
        : `resource ${uri}: source must be { type: file, path: <file> }; found ${describeValue(source)}`,
      'Serve a file of the package: source: { type: file, path: help/polySphere.txt } (relative to this YAML file).',
    );
    return null;
  }
  const written = posix.join(posix.dirname(file), source.path.replace(/\\/g, '/'));
  const resolved = source.path.startsWith('/')
    ? await resolvePackagePath(packageDir, source.path)
    : await resolvePackagePath(packageDir, written);
  if (!resolved.ok || resolved.kind !== 'file') {
    const { message, hint } = resolved.ok
      ? { message: `resource ${uri}: source.path '${source.path}' is a directory`, hint: 'Point it at a file.' }
      : describePathProblem(`resource ${uri}: source.path`, resolved);
    issues.error(resolved.ok || resolved.problem === 'missing' ? 'files' : 'policy', file, `${at}/source/path`, message, hint);
    return null;
  }
  const mimeType = raw.mimeType ?? raw.mime_type;
  if (mimeType !== undefined && (typeof mimeType !== 'string' || !/^[\w.+-]+\/[\w.+-]+$/.test(mimeType))) {
    issues.error(
      'definition',
      file,
      `${at}/mimeType`,
      `resource ${uri}: mimeType must be a media type such as text/plain; found ${describeValue(mimeType)}`,
      'Write e.g. mimeType: text/plain.',
    );
    return null;
  }
  const name = typeof raw.name === 'string' && raw.name.trim() !== '' ? raw.name : posix.basename(resolved.path);
  if (raw.name === undefined)
    issues.warning('definition', file, `${at}/name`, `resource ${uri} has no name; '${name}' is used`, 'Give it a name hosts can show.');
  return {
    uri,
    name,
    title: typeof raw.title === 'string' ? raw.title : null,
    description: typeof raw.description === 'string' ? raw.description : null,
    mime_type: (mimeType as string | undefined) ?? mediaTypeOf(resolved.path),
    path: resolved.path,
    size: (await stat(join(packageDir, resolved.path))).size,
  };
}

function checkUri(value: unknown, file: string, at: string, issues: IssueList): string | null {
  let url: URL | null;
  try {
    url = typeof value === 'string' ? new URL(value) : null;
  } catch {
    url = null;
  }
  if (url === null) {
    issues.error(
      'definition',
      file,
      at,
      `resource uri must be an absolute URI such as maya-cmds://help/polySphere; found ${describeValue(value)}`,
      'Write scheme://path with a scheme of your own.',
    );
    return null;
  }
  if (RESERVED_SCHEMES.includes(url.protocol)) {
    issues.error(
      'policy',
      file,
      at,
      `resource uri ${url.href} uses the scheme ${url.protocol.slice(0, -1)}, which a package may not use`,
      `Use a scheme of your own (e.g. ${url.protocol === 'skill:' ? 'mytool' : 'maya-cmds'}://...); reserved: ${RESERVED_SCHEMES.map((scheme) => scheme.slice(0, -1)).join(', ')}.`,
    );
    return null;
  }
  return url.href;
}
