import { ProtocolError, ProtocolErrorCode } from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * How tools/list shows a connection the catalog: `all` lists every exposed tool (small catalogs, the
 * registry's behaviour before issue 26), `progressive` only the discovery tools and what the connection
 * loaded with load_skill (seed 004 "On-Demand Discovery").
 */
export type ToolExposureMode = 'all' | 'progressive';

/** The `_meta` key under which a 2026-07-28 request carries its loaded skills (no session keeps them). */
export const TOOLSET_META_KEY = 'io.skill-registry/toolset';

/** Skills one connection may load at once: each adds its tools' full schemas to every tools/list. */
export const MAX_LOADED_SKILLS = 50;
/** A toolset token longer than this is not one this registry issued. */
const MAX_TOKEN_LENGTH = 16 * 1024;

const tokenSchema = z.array(z.tuple([z.string().min(1).max(200), z.array(z.string().min(1).max(200)).max(100)])).max(MAX_LOADED_SKILLS);

/**
 * What a connection has loaded (seed 004): skills, and per loaded skill its active tool groups. A
 * 2025-era session keeps one for its life; a 2026-07-28 request rebuilds it from the toolset token its
 * `_meta` carries (`io.skill-registry/toolset`), which load_skill and the other loading tools answer, so
 * any replica serves it and nothing is stored.
 */
export class LoadedSkills {
  private readonly skills = new Map<string, Set<string>>();
  /** 2025-era sessions: the fingerprint of the tools the client was last told about (notifications/tools/list_changed). */
  announced: string | null = null;

  constructor(readonly mode: ToolExposureMode) {}

  /** The state a 2026-07-28 request's toolset token describes; a malformed token is JSON-RPC -32602. */
  static fromToken(mode: ToolExposureMode, token: unknown): LoadedSkills {
    const loaded = new LoadedSkills(mode);
    if (token === undefined || token === null || token === '') return loaded;
    const entries = typeof token === 'string' && token.length <= MAX_TOKEN_LENGTH ? decodeToken(token) : null;
    if (entries === null) {
      throw new ProtocolError(
        ProtocolErrorCode.InvalidParams,
        `Invalid _meta["${TOOLSET_META_KEY}"]: pass the toolset string that load_skill last returned, or leave it out`,
      );
    }
    for (const [skill, groups] of entries) loaded.skills.set(skill, new Set(groups));
    return loaded;
  }

  /** The token that describes this state (what the loading tools answer as `toolset`). */
  token(): string {
    const entries = [...this.skills].map(([skill, groups]) => [skill, [...groups].sort()]);
    return Buffer.from(JSON.stringify(entries)).toString('base64url');
  }

  get size(): number {
    return this.skills.size;
  }

  isLoaded(skill: string): boolean {
    return this.skills.has(skill);
  }

  /** Loaded skill names, in name order. */
  names(): string[] {
    return [...this.skills.keys()].sort();
  }

  /** Whether `group` of a loaded `skill` is active. */
  isActive(skill: string, group: string): boolean {
    return this.skills.get(skill)?.has(group) ?? false;
  }

  /** Loads `skill` with `activeGroups` active (a reload resets them); false when the limit is reached. */
  load(skill: string, activeGroups: readonly string[]): boolean {
    if (!this.skills.has(skill) && this.skills.size >= MAX_LOADED_SKILLS) return false;
    this.skills.set(skill, new Set(activeGroups));
    return true;
  }

  unload(skill: string): boolean {
    return this.skills.delete(skill);
  }

  /** Activates or deactivates a group of a loaded skill; false when nothing changed. */
  setGroup(skill: string, group: string, active: boolean): boolean {
    const groups = this.skills.get(skill);
    if (!groups || groups.has(group) === active) return false;
    if (active) groups.add(group);
    else groups.delete(group);
    return true;
  }
}

function decodeToken(token: string): [string, string[]][] | null {
  try {
    const parsed = tokenSchema.safeParse(JSON.parse(Buffer.from(token, 'base64url').toString('utf8')));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
