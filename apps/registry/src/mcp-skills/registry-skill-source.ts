import { Injectable, Logger } from '@nestjs/common';
import type { Resource } from '@modelcontextprotocol/server';
import { type Skill, SkillCatalogError, type SkillReadResult, type SkillSource, skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { LRUCache } from 'lru-cache';
import { isAgentSkillsName, toAgentSkillsName } from '#agent-skills/index.js';
import { isExecutable } from '#contracts/index.js';
import { mcpPage } from '../mcp-protocol/mcp-paging.js';
import { type ManifestEntry, PackageStore, isTextMediaType, mediaTypeOf } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import { type ToolFilter, matches } from '../tool-definitions/exposed-skills.js';

const SCHEME = 'skill://';
const PAGE_SIZE = 100;
const DIRECTORY = 'inode/directory';
const MAX_CACHED_MANIFESTS = 5000;

/** One served skill: its root URI (`skill://<domain>/<agent-skills-name>`), version and stored files. */
interface ServedSkill {
  root: string;
  version: SkillVersionRecord;
  manifest: ManifestEntry[];
  entry: Skill;
}

/**
 * The registry's catalog as an MCP Skills extension (SEP-2640) source: every ACTIVE or DEPRECATED
 * skill's current version — both package formats — with every stored file as a resource under
 * `skill://<domain>/<name>/<path>`, `<name>` being the Agent Skills name (a TypeScript package's
 * catalog name through the one mapping, `export_bom` → `export-bom`). `frontmatter` is the stored
 * SKILL.md's frontmatter exactly as written — no key added, none dropped, values as the file has them —
 * read by the SDK's own SKILL.md reader, so the check an SDK client makes (the entry against the file it
 * reads back) agrees by construction. A SKILL.md that cannot be a valid entry as written (a name that is
 * not the Agent Skills name, `metadata` that is not a string map: another vendor's nested block) is not
 * listed — the rule the SDK's own server applies — and the reason is logged once per stored package; the
 * package's tools are served as usual. Files come from the package store.
 */
@Injectable()
export class RegistrySkillSource {
  private readonly logger = new Logger(RegistrySkillSource.name);
  private readonly manifests = new LRUCache<string, ManifestEntry[]>({ max: MAX_CACHED_MANIFESTS });
  private readonly frontmatters = new LRUCache<string, FrontmatterOutcome>({ max: MAX_CACHED_MANIFESTS });
  private served: { generation: number; filter: string; skills: ServedSkill[] } | null = null;

  constructor(
    private readonly catalog: SkillCatalog,
    private readonly store: PackageStore,
  ) {}

  /** The SDK's source interface for one connection's filter. */
  for(filter: ToolFilter): SkillSource {
    return {
      list: (params) => this.list(filter, params.cursor),
      get: async (uri) => (await this.skills(filter)).find((skill) => skill.entry.uri === uri)?.entry,
      read: (uri) => this.read(filter, uri),
      readDirectory: (uri, params) => this.readDirectory(filter, uri, params.cursor),
      listResources: async () => (await this.skills(filter)).map((skill) => skillMdResource(skill)),
    };
  }

  /** Changes exactly when what skills/list shows changes (for resources/list_changed). */
  async fingerprint(): Promise<string> {
    return (await this.skills({})).map((skill) => `${skill.entry.uri}@${skill.version.contentHash}`).join('\n');
  }

  private async list(filter: ToolFilter, cursor: string | undefined): Promise<{ skills: Skill[]; nextCursor?: string }> {
    const { page, nextCursor } = mcpPage(await this.skills(filter), (skill) => skill.entry.uri, cursor, PAGE_SIZE);
    return { skills: page.map((skill) => skill.entry), ...(nextCursor ? { nextCursor } : {}) };
  }

  private async read(filter: ToolFilter, uri: string): Promise<SkillReadResult | undefined> {
    const located = await this.locate(filter, uri);
    if (!located?.file) return undefined;
    const found = await this.store.readFile(located.skill.version.contentHash, located.file.path);
    if (!found) return undefined;
    const mimeType = mediaTypeOf(found.entry.path);
    if (isTextMediaType(mimeType)) {
      const text = found.bytes.toString('utf8');
      // Only text that round-trips goes as text; anything else is served as its exact bytes.
      if (Buffer.from(text, 'utf8').equals(found.bytes)) return { text, mimeType };
    }
    return { bytes: new Uint8Array(found.bytes), mimeType };
  }

  private async readDirectory(filter: ToolFilter, uri: string, cursor: string | undefined) {
    const located = await this.locate(filter, uri.endsWith('/') ? uri.slice(0, -1) : uri);
    if (!located || located.file) return undefined;
    const prefix = located.directory === '' ? '' : `${located.directory}/`;
    const children = new Map<string, Resource>();
    for (const entry of located.skill.manifest) {
      if (!entry.path.startsWith(prefix)) continue;
      const rest = entry.path.slice(prefix.length);
      const slash = rest.indexOf('/');
      const name = slash < 0 ? rest : rest.slice(0, slash);
      const childUri = `${located.skill.root}/${prefix}${name}`;
      if (children.has(childUri)) continue;
      children.set(childUri, slash < 0 ? fileResource(childUri, entry) : { uri: childUri, name, mimeType: DIRECTORY });
    }
    const all = [...children.values()].sort((a, b) => (a.uri < b.uri ? -1 : 1));
    const { page, nextCursor } = mcpPage(all, (resource) => resource.uri, cursor, PAGE_SIZE);
    return { resources: page, ...(nextCursor ? { nextCursor } : {}) };
  }

  /** The skill a URI is under, and the file or directory (package-relative) it names. */
  private async locate(filter: ToolFilter, uri: string) {
    for (const skill of await this.skills(filter)) {
      if (uri !== skill.root && !uri.startsWith(`${skill.root}/`)) continue;
      const relative = uri === skill.root ? '' : decodedPath(uri.slice(skill.root.length + 1));
      // A malformed percent-escape names no file: not found, as any other unknown path.
      if (relative === null) return undefined;
      const file = skill.manifest.find((entry) => entry.path === relative);
      if (file) return { skill, file, directory: null };
      const isDirectory = relative === '' || skill.manifest.some((entry) => entry.path.startsWith(`${relative}/`));
      return isDirectory ? { skill, file: null, directory: relative } : undefined;
    }
    return undefined;
  }

  /** The served skills for `filter`, rebuilt when the catalog changes (manifests are immutable, so cached by hash). */
  private async skills(filter: ToolFilter): Promise<ServedSkill[]> {
    const key = JSON.stringify(filter);
    const generation = this.catalog.generation;
    if (this.served && this.served.generation === generation && this.served.filter === key) return this.served.skills;
    const skills: ServedSkill[] = [];
    for (const record of this.catalog.all()) {
      const version = currentVersion(record);
      if (!isExecutable(version.status) || !matches(version, filter)) continue;
      const name = version.agentSkill?.name ?? toAgentSkillsName(version.name);
      if (!isAgentSkillsName(name)) continue;
      const manifest = await this.manifestOf(version.contentHash);
      if (!manifest?.some((entry) => entry.path === 'SKILL.md')) continue;
      const root = `${SCHEME}${encodeURIComponent(version.domain)}/${name}`;
      const frontmatter = await this.frontmatterOf(version, name);
      if ('unlisted' in frontmatter) continue;
      const entry: Skill = {
        uri: `${root}/SKILL.md`,
        frontmatter: frontmatter.frontmatter,
        resources: manifest.map((file) => ({ uri: `${root}/${file.path}`, digest: `sha256:${file.sha256}`, size: file.size })),
      };
      skills.push({ root, version, manifest, entry });
    }
    skills.sort((a, b) => (a.entry.uri < b.entry.uri ? -1 : 1));
    this.served = { generation, filter: key, skills };
    return skills;
  }

  private async manifestOf(contentHash: string): Promise<ManifestEntry[] | null> {
    let manifest = this.manifests.get(contentHash);
    if (!manifest) {
      manifest = (await this.store.manifest(contentHash)) ?? undefined;
      if (!manifest) return null;
      this.manifests.set(contentHash, manifest);
    }
    return manifest;
  }

  /**
   * SKILL.md's frontmatter as written, read and checked by the SDK (`skillEntry` over the one file), or why this
   * stored package cannot be listed; cached by content hash (stored bytes never change), logged once.
   */
  private async frontmatterOf(version: SkillVersionRecord, name: string): Promise<FrontmatterOutcome> {
    const key = `${version.contentHash}/${version.domain}/${name}`;
    const cached = this.frontmatters.get(key);
    if (cached) return cached;
    const outcome = await this.readFrontmatter(version, name);
    if ('unlisted' in outcome) {
      this.logger.warn(`skills/list does not list ${version.name} ${version.version} (${version.contentHash}): ${outcome.unlisted}`);
    }
    this.frontmatters.set(key, outcome);
    return outcome;
  }

  private async readFrontmatter(version: SkillVersionRecord, name: string): Promise<FrontmatterOutcome> {
    const file = await this.store.readFile(version.contentHash, 'SKILL.md');
    if (!file) return { unlisted: 'its SKILL.md is not in the package store' };
    try {
      const entry = await skillEntry(`${version.domain}/${name}`, { 'SKILL.md': new Uint8Array(file.bytes) });
      return { frontmatter: entry.frontmatter };
    } catch (error) {
      if (!(error instanceof SkillCatalogError)) throw error;
      return { unlisted: `its SKILL.md is not a valid MCP Skills entry as written: ${error.problems.map((p) => p.message).join('; ')}` };
    }
  }
}

/** A stored SKILL.md as an MCP Skills entry's frontmatter, or the reason it is not listed. */
type FrontmatterOutcome = { frontmatter: Skill['frontmatter'] } | { unlisted: string };

function fileResource(uri: string, entry: ManifestEntry): Resource {
  return { uri, name: entry.path.split('/').pop() as string, mimeType: mediaTypeOf(entry.path), size: entry.size };
}

function skillMdResource(skill: ServedSkill): Resource {
  const { frontmatter } = skill.entry;
  return {
    uri: skill.entry.uri,
    name: String(frontmatter.name),
    description: String(frontmatter.description ?? ''),
    mimeType: 'text/markdown',
    size: skill.manifest.find((entry) => entry.path === 'SKILL.md')?.size,
  };
}

/** A URI path as text, or null when its percent-escapes do not form UTF-8 (`%ZZ`, a lone `%C3`). */
function decodedPath(encoded: string): string | null {
  try {
    return decodeURIComponent(encoded);
  } catch {
    return null;
  }
}
