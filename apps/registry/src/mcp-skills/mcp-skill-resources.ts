import { Injectable } from '@nestjs/common';
import { type McpServer, ResourceNotFoundError, ResourceTemplate } from '@modelcontextprotocol/server';
import { isExecutable, type StoredResource } from '#contracts/index.js';
import { PackageStore, isTextMediaType } from '#package-store/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { type SkillVersionRecord, currentVersion } from '../catalog/skill-records.js';
import type { McpConnection } from '../mcp-protocol/mcp-connection.js';
import { matches } from '../tool-definitions/exposed-skills.js';

/** resources/list has no cursor for template listings: past this many, only resources/read reaches the rest. */
const LISTED = 500;

/**
 * The static resources of Agent Skills packages (seed 004's `metadata.dcc-mcp.resources`), served under the URIs
 * their authors gave them: resources/list shows those of the ACTIVE and DEPRECATED skills in the connection's filter,
 * resources/read returns the package file (text for text, JSON, YAML, XML and JavaScript types, base64 otherwise)
 * from the package store, the bytes that were validated. Packages cannot take the registry's own schemes (`skill://`,
 * `twin://`: the loader refuses them); a URI two skills declare is served from the first by name.
 */
@Injectable()
export class McpSkillResources {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly store: PackageStore,
  ) {}

  /** Registers last: every other resource and template of the connection is matched before this catch-all. */
  attach(mcp: McpServer, connection: McpConnection): void {
    const list = () => ({
      resources: this.declared(connection)
        .slice(0, LISTED)
        .map(({ resource, version }) => ({
          uri: resource.uri,
          name: resource.name,
          ...(resource.title ? { title: resource.title } : {}),
          ...(resource.description ? { description: resource.description } : {}),
          mimeType: resource.mime_type,
          size: resource.size,
          _meta: { skill: version.name, version: version.version },
        })),
    });
    mcp.registerResource(
      'skill-package-resources',
      new ResourceTemplate('{+uri}', { list }),
      { description: "Static resources of Agent Skills packages (metadata.dcc-mcp.resources), under their authors' URIs" },
      (uri) => this.read(uri.href, connection),
    );
  }

  private async read(uri: string, connection: McpConnection) {
    const found = this.declared(connection).find(({ resource }) => resource.uri === uri);
    if (!found) throw new ResourceNotFoundError(uri);
    const { resource, version } = found;
    const file = await this.store.readFile(version.contentHash, resource.path);
    if (!file) throw new ResourceNotFoundError(uri, `${uri}: the file of ${version.name} ${version.version} is not in the package store`);
    const meta = { skill: version.name, version: version.version, content_hash: version.contentHash };
    return {
      contents: [
        isTextMediaType(resource.mime_type)
          ? { uri, mimeType: resource.mime_type, text: file.bytes.toString('utf8'), _meta: meta }
          : { uri, mimeType: resource.mime_type, blob: file.bytes.toString('base64'), _meta: meta },
      ],
    };
  }

  /** Every declared resource the connection sees, in skill-name order, each URI once (its first declaration). */
  private declared({ filter }: McpConnection): { resource: StoredResource; version: SkillVersionRecord }[] {
    const versions = this.catalog
      .all()
      .map(currentVersion)
      .filter((version) => version.resources.length > 0 && isExecutable(version.status) && matches(version, filter))
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const seen = new Set<string>();
    const declared: { resource: StoredResource; version: SkillVersionRecord }[] = [];
    for (const version of versions) {
      for (const resource of version.resources) {
        if (seen.has(resource.uri)) continue;
        seen.add(resource.uri);
        declared.push({ resource, version });
      }
    }
    return declared;
  }
}
