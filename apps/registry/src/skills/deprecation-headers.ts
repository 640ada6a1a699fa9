import type { FastifyReply } from 'fastify';
import type { SkillVersionRecord } from '../catalog/skill-records.js';

/** The deprecation signals of a DEPRECATED version among `versions`, as header values; every transport sends these. */
export interface DeprecationSignals {
  deprecation: string;
  sunset?: string;
  link?: string;
}

/**
 * Standard deprecation signalling about a DEPRECATED version:
 * `Deprecation` (RFC 9745), `Sunset` (RFC 8594), `Link rel="successor-version"` (RFC 5829).
 */
export function deprecationSignals(versions: SkillVersionRecord[]): DeprecationSignals | null {
  const deprecated = versions.find((version) => version.status === 'DEPRECATED');
  if (!deprecated) return null;
  const since = deprecated.deprecatedAt ?? deprecated.statusChangedAt;
  const signals: DeprecationSignals = { deprecation: `@${Math.floor(since.getTime() / 1000)}` };
  if (deprecated.deprecationSunset) signals.sunset = deprecated.deprecationSunset.toUTCString();
  if (deprecated.deprecationSuccessor) {
    const [name, version] = deprecated.deprecationSuccessor.split('@');
    const target = version
      ? `/v1/skills/${encodeURIComponent(name as string)}/versions/${encodeURIComponent(version)}`
      : `/v1/skills/${encodeURIComponent(name as string)}`;
    signals.link = `<${target}>; rel="successor-version"`;
  }
  return signals;
}

/** The deprecation signals of `versions` as REST response headers. */
export function setDeprecationHeaders(reply: FastifyReply, versions: SkillVersionRecord[]): void {
  const signals = deprecationSignals(versions);
  if (signals) for (const [name, value] of deprecationSignalHeaders(signals)) reply.header(name, value);
}

/** Deprecation signals as header name/value pairs, in the order they are sent (the one list of their names). */
export function deprecationSignalHeaders(signals: DeprecationSignals): [string, string][] {
  const headers: [string, string][] = [['Deprecation', signals.deprecation]];
  if (signals.sunset) headers.push(['Sunset', signals.sunset]);
  if (signals.link) headers.push(['Link', signals.link]);
  return headers;
}
