import type { FastifyReply } from 'fastify';
import type { SkillVersionRecord } from '../catalog/skill-records.js';

/**
 * Standard deprecation signalling on responses about a DEPRECATED version:
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594), `Link rel="successor-version"` (RFC 5829).
 */
export function setDeprecationHeaders(reply: FastifyReply, versions: SkillVersionRecord[]): void {
  const deprecated = versions.find((version) => version.status === 'DEPRECATED');
  if (!deprecated) return;
  const since = deprecated.deprecatedAt ?? deprecated.statusChangedAt;
  reply.header('Deprecation', `@${Math.floor(since.getTime() / 1000)}`);
  if (deprecated.deprecationSunset) reply.header('Sunset', deprecated.deprecationSunset.toUTCString());
  if (deprecated.deprecationSuccessor) {
    const [name, version] = deprecated.deprecationSuccessor.split('@');
    const target = version
      ? `/v1/skills/${encodeURIComponent(name as string)}/versions/${encodeURIComponent(version)}`
      : `/v1/skills/${encodeURIComponent(name as string)}`;
    reply.header('Link', `<${target}>; rel="successor-version"`);
  }
}
