import type { SearchField, SearchLayer, SearchScope, SearchStatus } from './search-document.js';

/** BM25 saturation and length normalisation (issue 5 §3, seed 004). */
const BM25_K1 = 1.2;
const BM25_B = 0.75;

/**
 * A DEPRECATED skill's score is multiplied by this, so at equal relevance it ranks below an ACTIVE
 * one, yet a deprecated skill that matches clearly better still shows (agents must learn it is
 * deprecated and what replaces it rather than never seeing it).
 */
export const DEPRECATED_PENALTY = 0.8;

/**
 * Seed 004's layer multipliers ("Layered Skill Architecture"): infrastructure and thin-harness skills are damped,
 * example skills left out (0); a skill without a layer ranks as a domain skill. A tags filter naming a layer
 * bypasses them (the raw BM25 order inside that slice), and an exact name brings an example skill back.
 */
export const LAYER_MULTIPLIER: Readonly<Record<SearchLayer, number>> = {
  domain: 1,
  infrastructure: 0.35,
  'thin-harness': 0.2,
  example: 0,
};
export const SEARCH_LAYERS: ReadonlySet<string> = new Set(Object.keys(LAYER_MULTIPLIER));

/** Seed 004's scope precedence, a tie-break after the name-substring one: Admin > System > User > Repo. */
export const SCOPE_RANK: Readonly<Record<SearchScope, number>> = { admin: 0, system: 1, user: 2, repo: 3 };

/** Tie-break order after the score: usable first, then on the way in, then on the way out. */
export const STATUS_RANK: Readonly<Record<SearchStatus, number>> = {
  ACTIVE: 0,
  REGISTERED: 1,
  DEPRECATED: 2,
  DRAFT: 3,
  ARCHIVED: 4,
};

/** Statuses left out unless the caller's status filter names them. */
export const EXCLUDED_BY_DEFAULT: ReadonlySet<SearchStatus> = new Set(['DRAFT', 'ARCHIVED']);

/** Robertson–Spärck Jones idf as in Lucene's BM25: always positive, ln(1 + (N − df + ½)/(df + ½)). */
export function idf(documentCount: number, documentFrequency: number): number {
  return Math.log(1 + (documentCount - documentFrequency + 0.5) / (documentFrequency + 0.5));
}

/** BM25 of one term in one field: idf · tf·(k1+1) / (tf + k1·(1 − b + b·len/avgLen)). */
export function bm25(termIdf: number, termFrequency: number, fieldLength: number, averageFieldLength: number): number {
  const lengthRatio = averageFieldLength > 0 ? fieldLength / averageFieldLength : 1;
  return (termIdf * termFrequency * (BM25_K1 + 1)) / (termFrequency + BM25_K1 * (1 - BM25_B + BM25_B * lengthRatio));
}

/** One ranked result. */
export interface SearchHit {
  name: string;
  score: number;
  status: SearchStatus;
  /** Fields in which at least one query term occurs, in SEARCH_FIELDS order. */
  matched_fields: SearchField[];
}

/**
 * What the ranking compares; `exact` is a case-insensitive match of the whole query with the name, `nameContains`
 * that the name contains the query (both with `-` and `_` read alike, so the Agent Skills spelling of a name counts).
 * `nameContains` is worked out only when two scores tie (a substring search per match cost a third of a search):
 * left undefined, the comparison fills it in from `comparableName`.
 */
export interface RankedCandidate {
  id: string;
  name: string;
  /** The name as names compare: lower case, `-` read as `_`. */
  comparableName: string;
  exact: boolean;
  score: number;
  nameContains?: boolean;
  scopeRank: number;
  statusRank: number;
}

/**
 * The total order of results (seed 004's tie-breaks, then the registry's): exact name first, then score
 * descending, then a name containing the query, then scope (admin first), then status rank (ACTIVE before
 * DEPRECATED), then name and id by code unit (not locale, so every machine agrees).
 */
function compareCandidates(a: RankedCandidate, b: RankedCandidate, query: string): number {
  if (a.exact !== b.exact) return a.exact ? -1 : 1;
  if (a.score !== b.score) return b.score - a.score;
  a.nameContains ??= query !== '' && a.comparableName.includes(query);
  b.nameContains ??= query !== '' && b.comparableName.includes(query);
  if (a.nameContains !== b.nameContains) return a.nameContains ? -1 : 1;
  if (a.scopeRank !== b.scopeRank) return a.scopeRank - b.scopeRank;
  if (a.statusRank !== b.statusRank) return a.statusRank - b.statusRank;
  if (a.name !== b.name) return a.name < b.name ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return 0;
}

/**
 * Keeps the best `limit` candidates in order as they stream in: O(n) comparisons against the worst
 * kept plus a binary insertion for the few that beat it, instead of sorting every match. `query` is the
 * comparable query text of the name-substring tie-break.
 */
export class TopK<T extends RankedCandidate> {
  readonly items: T[] = [];

  constructor(
    private readonly limit: number,
    private readonly query = '',
  ) {}

  /** Whether a candidate would be kept; lets callers skip building candidates that would not. */
  admits(candidate: RankedCandidate): boolean {
    if (this.limit === 0) return false;
    return this.items.length < this.limit || compareCandidates(candidate, this.items[this.items.length - 1] as T, this.query) < 0;
  }

  offer(candidate: T): void {
    if (!this.admits(candidate)) return;
    const items = this.items;
    let low = 0;
    let high = items.length;
    while (low < high) {
      const mid = (low + high) >>> 1;
      if (compareCandidates(items[mid] as T, candidate, this.query) <= 0) low = mid + 1;
      else high = mid;
    }
    items.splice(low, 0, candidate);
    if (items.length > this.limit) items.pop();
  }
}
