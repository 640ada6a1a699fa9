import { z } from 'zod';
import { unstorableTextReason } from '#contracts/index.js';
import { TwinFailure, invalid } from './twin-failure.js';

/** Branch names: lower-case, URL- and URI-safe (`twin://<branch>/<id>`), like `main` or `bracket-rev-b`. */
const BRANCH_NAME = /^[a-z0-9][a-z0-9._-]{0,62}$/;
/** Work product kinds: `cad_model`, `mesh`, ... (extensible: any lower_snake_case word). */
const KIND = /^[a-z][a-z0-9_]{0,63}$/;
/** The kinds the catalog uses; others are accepted (the list is open). */
const KNOWN_KINDS = ['cad_model', 'mesh', 'netlist', 'pcb', 'simulation_result', 'report', 'firmware'] as const;
/** `type/subtype` with an optional `;` parameter list, as RFC 6838 allows, lower-cased on the way in. */
const MEDIA_TYPE =
  /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}(\s*;\s*[a-z0-9!#$&^_.+-]+=("[^"\\\r\n]{0,200}"|[a-z0-9!#$&^_.+-]{1,200}))*$/i;
/** Bodies that are forms, not content: refused so that a browser form cannot write to the twin. */
const NOT_CONTENT = /^(multipart\/|application\/x-www-form-urlencoded)/i;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const MAX_METADATA_BYTES = 16 * 1024;

export interface TwinLimits {
  /** Largest content of one revision, in bytes. */
  maxRevisionBytes: number;
  /** Most content bytes all revisions written on one branch may hold. */
  maxBranchBytes: number;
}

export const DEFAULT_TWIN_LIMITS: TwinLimits = { maxRevisionBytes: 32 * 1024 * 1024, maxBranchBytes: 2 * 1024 * 1024 * 1024 };

export function checkBranchName(name: unknown, field = 'branch'): string {
  if (typeof name !== 'string' || !BRANCH_NAME.test(name)) {
    throw invalid(field, 'must be 1-63 characters of a-z, 0-9, ".", "_" and "-", starting with a letter or digit');
  }
  return name;
}

export function checkKind(kind: unknown): string {
  if (typeof kind !== 'string' || !KIND.test(kind)) throw invalid('kind', `must be lower_snake_case (e.g. ${KNOWN_KINDS.join(', ')})`);
  return kind;
}

export function checkName(name: unknown): string {
  if (typeof name !== 'string' || name.length < 1 || name.length > 200) throw invalid('name', 'must be 1-200 characters');
  const unstorable = unstorableTextReason(name);
  if (unstorable) throw invalid('name', unstorable);
  // Control characters (line breaks, escapes) in a name end up in logs, headers and file names.
  if (/\p{Cc}/u.test(name)) throw invalid('name', 'must not contain control characters');
  if (name.trim() !== name) throw invalid('name', 'must not start or end with white space');
  return name;
}

export function checkWorkProductId(id: unknown, field = 'id'): string {
  if (typeof id !== 'string' || !UUID.test(id)) throw invalid(field, 'must be a UUID');
  return id.toLowerCase();
}

/** The media type of content, lower-cased; forms and malformed types are 415. */
export function checkMediaType(mediaType: unknown): string {
  if (typeof mediaType !== 'string' || mediaType.trim() === '') {
    throw new TwinFailure('MEDIA_TYPE_UNSUPPORTED', 'Content needs a media type (Content-Type), e.g. text/plain or model/step', {});
  }
  const trimmed = mediaType.trim();
  if (!MEDIA_TYPE.test(trimmed) || NOT_CONTENT.test(trimmed)) {
    throw new TwinFailure(
      'MEDIA_TYPE_UNSUPPORTED',
      `'${trimmed.slice(0, 100)}' is not a media type the twin stores: send the raw bytes with their own type (e.g. text/plain, model/step, application/json)`,
      { media_type: trimmed.slice(0, 100) },
    );
  }
  return trimmed.toLowerCase();
}

export function checkMetadata(metadata: unknown): Record<string, unknown> {
  if (metadata === undefined || metadata === null) return {};
  if (typeof metadata !== 'object' || Array.isArray(metadata)) throw invalid('metadata', 'must be a JSON object');
  if (Buffer.byteLength(JSON.stringify(metadata)) > MAX_METADATA_BYTES)
    throw invalid('metadata', `must be at most ${MAX_METADATA_BYTES} bytes as JSON`);
  return metadata as Record<string, unknown>;
}

export function checkContentSize(size: number, limits: TwinLimits): void {
  if (size > limits.maxRevisionBytes) {
    throw new TwinFailure(
      'TOO_LARGE',
      `Content is larger than the ${limits.maxRevisionBytes} bytes a revision may hold (TWIN_MAX_REVISION_BYTES)`,
      {
        limit: 'TWIN_MAX_REVISION_BYTES',
        max_bytes: limits.maxRevisionBytes,
      },
    );
  }
}

/** The branches a branch sees, nearest first, each with the time up to which its revisions count (null: all). */
export interface LineageStep {
  branch: string;
  cutoff: Date | null;
}

/**
 * The lineage of a branch from its chain of ancestors (`chain[0]` is the branch itself): a parent's
 * revisions count up to the child's fork point, a grandparent's up to the earlier of the two, and so on.
 */
export function lineageOf(chain: { name: string; forkedAt: Date | null }[]): LineageStep[] {
  const steps: LineageStep[] = [];
  let cutoff: Date | null = null;
  for (let index = 0; index < chain.length; index++) {
    const branch = chain[index] as { name: string; forkedAt: Date | null };
    steps.push({ branch: branch.name, cutoff });
    if (branch.forkedAt && (cutoff === null || branch.forkedAt < cutoff)) cutoff = branch.forkedAt;
  }
  return steps;
}

/** The twin's limits as configuration variables, shared by the registry's and the executor's config. */
export const TWIN_LIMIT_VARIABLES = {
  TWIN_MAX_REVISION_BYTES: z.coerce.number().int().min(1).default(DEFAULT_TWIN_LIMITS.maxRevisionBytes),
  TWIN_MAX_BRANCH_BYTES: z.coerce.number().int().min(1).default(DEFAULT_TWIN_LIMITS.maxBranchBytes),
};

export function twinLimitsOf(config: { TWIN_MAX_REVISION_BYTES: number; TWIN_MAX_BRANCH_BYTES: number }): TwinLimits {
  return { maxRevisionBytes: config.TWIN_MAX_REVISION_BYTES, maxBranchBytes: config.TWIN_MAX_BRANCH_BYTES };
}
