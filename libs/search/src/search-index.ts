import {
  DEPRECATED_PENALTY,
  EXCLUDED_BY_DEFAULT,
  LAYER_MULTIPLIER,
  SCOPE_RANK,
  SEARCH_LAYERS,
  STATUS_RANK,
  TopK,
  bm25,
  idf,
  type RankedCandidate,
  type SearchHit,
} from './ranking.js';
import { FIELD_WEIGHTS, SEARCH_FIELDS, fieldText, type SearchDocument, type SearchField, type SearchStatus } from './search-document.js';
import { tokenize, wholeWordTokens } from './tokenizer.js';

/** Filters restrict the candidate set before scoring; every one given must hold. */
interface SearchFilter {
  domain?: string;
  agent?: string;
  /**
   * Every tag must be on the skill (exact, case-sensitive, like the list endpoint). A tag that names one of seed
   * 004's layers (case-insensitive) also matches a skill of that layer, and lifts the layer multipliers and the
   * exclusion of example skills for this search.
   */
  tags?: readonly string[];
  /** Seed 004's `dcc` filter: the skill's DCC or one of its products (case-insensitive). */
  dcc?: string;
  /** Only this status; without it every status but DRAFT and ARCHIVED. */
  status?: SearchStatus;
  /** Only skills usable at this phase (the skill's phase ≤ n). */
  phase?: number;
}

export interface SearchQuery extends SearchFilter {
  /** Words to rank by; blank browses every skill the filters admit, in tie-break order (seed 004's tags-only search). */
  text: string;
  /** How many hits to return (default 10); `total` counts them all. */
  limit?: number;
}

export interface SearchResults {
  items: SearchHit[];
  /** Every document that matched (after filters), not only the returned page. */
  total: number;
}

const DEFAULT_SEARCH_LIMIT = 10;

const FIELD_COUNT = SEARCH_FIELDS.length;
const WEIGHTS = SEARCH_FIELDS.map((field) => FIELD_WEIGHTS[field]);

interface Entry {
  document: SearchDocument;
  /** Per field: term → frequency; kept so removal touches only this document's postings. */
  termFrequencies: Map<string, number>[];
  statusRank: number;
  penalty: number;
  /** Seed 004's layer multiplier (0 for an example skill: left out unless asked for). */
  layerMultiplier: number;
  scopeRank: number;
  /** The name as names compare: lower case, `-` read as `_`. */
  comparableName: string;
}

/** The documents containing a term, as parallel arrays (iterating arrays is several times faster than a Map). */
interface Posting {
  slots: number[];
  frequencies: number[];
}

interface FieldStatistics {
  /** term → slots containing it, unordered. */
  postings: Map<string, Posting>;
  /** Token count of this field per slot. */
  lengths: number[];
  totalLength: number;
}

interface Candidate extends RankedCandidate {
  slot: number;
}

const NOT_EVALUATED = 0;
const ADMITTED = 1;
const REJECTED = 2;

/**
 * An in-memory BM25 index of skills, updated in place.
 *
 * Ranking: a weighted sum of per-field BM25 (k1 1.2, b 0.75), i.e. for each distinct query term t
 * and field f: weight(f) · idf_f(t) · tf·(k1+1) / (tf + k1·(1 − b + b·len_f/avglen_f)). Every field
 * has its own document frequencies and average length, so a long description does not dampen a name
 * hit and the weights keep their face value (a name hit is worth 2.5× a description hit). We did
 * not use BM25F (weights as term-frequency boosts, one saturation over all fields): with weights of
 * 2–5 on one-to-ten-token fields the shared saturation squeezes a name hit to ~1.3× a description
 * hit, which contradicts the weights the registry promises.
 *
 * Statistics (N, df, average lengths) are those of the WHOLE index, not of the filtered slice:
 * filters only choose which documents get scored, so a skill's score does not change with the
 * filters a caller passes, and incremental updates stay exact.
 */
export class SearchIndex {
  private readonly slotById = new Map<string, number>();
  private readonly slotsByLowerName = new Map<string, Set<number>>();
  private readonly entries: (Entry | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly fields: FieldStatistics[] = SEARCH_FIELDS.map(() => ({ postings: new Map(), lengths: [], totalLength: 0 }));
  // Scratch buffers reused by every search (searches are synchronous, so never shared).
  private scores = new Float64Array(0);
  // One bit per SEARCH_FIELDS entry (12 now; 16 fit).
  private fieldMasks = new Uint16Array(0);
  private verdicts = new Uint8Array(0);

  constructor(documents: Iterable<SearchDocument> = []) {
    for (const document of documents) this.upsert(document);
  }

  get size(): number {
    return this.slotById.size;
  }

  has(id: string): boolean {
    return this.slotById.has(id);
  }

  get(id: string): SearchDocument | undefined {
    const slot = this.slotById.get(id);
    return slot === undefined ? undefined : this.entries[slot]?.document;
  }

  /** Adds or replaces a document; statistics are adjusted by its old and new terms only. */
  upsert(document: SearchDocument): void {
    this.remove(document.id);
    const slot = this.freeSlots.pop() ?? this.entries.length;
    const termFrequencies: Map<string, number>[] = [];
    for (let f = 0; f < FIELD_COUNT; f++) {
      const field = SEARCH_FIELDS[f] as SearchField;
      const tokens = field === 'dcc' ? wholeWordTokens(fieldText(document, field)) : tokenize(fieldText(document, field));
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      const statistics = this.fields[f] as FieldStatistics;
      for (const [term, frequency] of frequencies) {
        let posting = statistics.postings.get(term);
        if (!posting) statistics.postings.set(term, (posting = { slots: [], frequencies: [] }));
        posting.slots.push(slot);
        posting.frequencies.push(frequency);
      }
      statistics.lengths[slot] = tokens.length;
      statistics.totalLength += tokens.length;
      termFrequencies.push(frequencies);
    }
    const comparableName = comparable(document.name);
    this.entries[slot] = {
      document,
      termFrequencies,
      statusRank: STATUS_RANK[document.status],
      penalty: document.status === 'DEPRECATED' ? DEPRECATED_PENALTY : 1,
      layerMultiplier: document.layer ? LAYER_MULTIPLIER[document.layer] : 1,
      scopeRank: SCOPE_RANK[document.scope ?? 'system'],
      comparableName,
    };
    this.slotById.set(document.id, slot);
    let sameName = this.slotsByLowerName.get(comparableName);
    if (!sameName) this.slotsByLowerName.set(comparableName, (sameName = new Set()));
    sameName.add(slot);
    this.ensureScratch(this.entries.length);
  }

  /** Removes a document if present; returns whether it was. */
  remove(id: string): boolean {
    const slot = this.slotById.get(id);
    if (slot === undefined) return false;
    const entry = this.entries[slot] as Entry;
    for (let f = 0; f < FIELD_COUNT; f++) {
      const field = this.fields[f] as FieldStatistics;
      for (const term of (entry.termFrequencies[f] as Map<string, number>).keys()) {
        const posting = field.postings.get(term) as Posting;
        if (posting.slots.length === 1) {
          field.postings.delete(term);
          continue;
        }
        // Swap-remove: postings are unordered (scores do not depend on their order).
        const at = posting.slots.indexOf(slot);
        posting.slots[at] = posting.slots[posting.slots.length - 1] as number;
        posting.frequencies[at] = posting.frequencies[posting.frequencies.length - 1] as number;
        posting.slots.pop();
        posting.frequencies.pop();
      }
      field.totalLength -= field.lengths[slot] as number;
      field.lengths[slot] = 0;
    }
    const sameName = this.slotsByLowerName.get(entry.comparableName) as Set<number>;
    sameName.delete(slot);
    if (sameName.size === 0) this.slotsByLowerName.delete(entry.comparableName);
    this.entries[slot] = undefined;
    this.slotById.delete(id);
    this.freeSlots.push(slot);
    return true;
  }

  search(query: SearchQuery): SearchResults {
    const limit = query.limit ?? DEFAULT_SEARCH_LIMIT;
    const documentCount = this.size;
    if (documentCount === 0) return { items: [], total: 0 };
    const terms = [...new Set(tokenize(query.text))];
    const touched: number[] = [];
    const evaluated: number[] = [];
    const { scores, fieldMasks, verdicts } = this;
    const comparableQuery = comparable(query.text.trim());
    const exactSlots = this.slotsByLowerName.get(comparableQuery);
    // Seed 004: a tags filter naming a layer browses that layer in raw BM25 order (no multipliers, examples too).
    const layersLifted = query.tags?.some((tag) => SEARCH_LAYERS.has(tag.toLowerCase())) ?? false;

    const admitted = (slot: number): boolean => {
      const verdict = verdicts[slot];
      if (verdict !== NOT_EVALUATED) return verdict === ADMITTED;
      const entry = this.entries[slot] as Entry;
      // An example skill is left out unless its layer is asked for or its exact name typed.
      const ok = admits(entry.document, query) && (entry.layerMultiplier > 0 || layersLifted || (exactSlots?.has(slot) ?? false));
      verdicts[slot] = ok ? ADMITTED : REJECTED;
      evaluated.push(slot);
      return ok;
    };

    // Per document the contributions are summed in one fixed order (term, then field), so the
    // result does not depend on posting order: an index built incrementally scores like a rebuild.
    for (const term of terms) {
      for (let f = 0; f < FIELD_COUNT; f++) {
        const field = this.fields[f] as FieldStatistics;
        const posting = field.postings.get(term);
        if (!posting) continue;
        const weight = WEIGHTS[f] as number;
        const { slots, frequencies } = posting;
        const termIdf = idf(documentCount, slots.length);
        const averageLength = field.totalLength / documentCount;
        const bit = 1 << f;
        for (let i = 0; i < slots.length; i++) {
          const slot = slots[i] as number;
          const frequency = frequencies[i] as number;
          if (!admitted(slot)) continue;
          if (fieldMasks[slot] === 0) touched.push(slot);
          fieldMasks[slot] = (fieldMasks[slot] as number) | bit;
          scores[slot] = (scores[slot] as number) + weight * bm25(termIdf, frequency, field.lengths[slot] as number, averageLength);
        }
      }
    }

    const top = new TopK<Candidate>(limit, comparableQuery);
    let total = 0;
    // One probe object is reused for the comparison; a candidate is only allocated when kept.
    const probe: Candidate = { slot: -1, id: '', name: '', comparableName: '', exact: false, score: 0, scopeRank: 0, statusRank: 0 };
    const consider = (slot: number, exact: boolean, browsing = false): void => {
      const entry = this.entries[slot] as Entry;
      const layerMultiplier = layersLifted || entry.layerMultiplier === 0 ? 1 : entry.layerMultiplier;
      const score = (scores[slot] as number) * entry.penalty * layerMultiplier;
      if (score <= 0 && !exact && !browsing) return;
      total++;
      probe.slot = slot;
      probe.id = entry.document.id;
      probe.name = entry.document.name;
      probe.exact = exact;
      probe.score = score;
      probe.comparableName = entry.comparableName;
      probe.nameContains = undefined;
      probe.scopeRank = entry.scopeRank;
      probe.statusRank = entry.statusRank;
      if (top.admits(probe)) top.offer({ ...probe });
    };
    for (const slot of touched) consider(slot, exactSlots?.has(slot) ?? false);
    for (const slot of exactSlots ?? []) {
      if (fieldMasks[slot] === 0 && admitted(slot)) consider(slot, true);
    }
    if (comparableQuery === '') {
      // Browsing: every admitted skill, ordered by the tie-breaks alone.
      this.entries.forEach((entry, slot) => {
        if (entry !== undefined && admitted(slot)) consider(slot, false, true);
      });
    }

    const items = top.items.map((candidate): SearchHit => {
      const entry = this.entries[candidate.slot] as Entry;
      return {
        name: candidate.name,
        score: candidate.score,
        status: entry.document.status,
        matched_fields: SEARCH_FIELDS.filter((_, f) => ((fieldMasks[candidate.slot] as number) & (1 << f)) !== 0),
      };
    });

    for (const slot of touched) {
      scores[slot] = 0;
      fieldMasks[slot] = 0;
    }
    for (const slot of evaluated) verdicts[slot] = NOT_EVALUATED;
    return { items, total };
  }

  private ensureScratch(capacity: number): void {
    if (capacity <= this.scores.length) return;
    const size = Math.max(capacity, this.scores.length * 2, 64);
    this.scores = new Float64Array(size);
    this.fieldMasks = new Uint16Array(size);
    this.verdicts = new Uint8Array(size);
  }
}

function admits(document: SearchDocument, filter: SearchFilter): boolean {
  if (filter.status === undefined ? EXCLUDED_BY_DEFAULT.has(document.status) : document.status !== filter.status) return false;
  if (filter.domain !== undefined && document.domain !== filter.domain) return false;
  if (filter.agent !== undefined && document.agent !== filter.agent) return false;
  if (filter.phase !== undefined && document.phase > filter.phase) return false;
  if (filter.tags !== undefined && !filter.tags.every((tag) => hasTag(document, tag))) return false;
  if (filter.dcc !== undefined) {
    const dcc = filter.dcc.toLowerCase();
    if (document.dcc !== dcc && !(document.products ?? []).includes(dcc)) return false;
  }
  return true;
}

/** A tag of the skill, or (seed 004) the name of its layer, which reads as a tag whatever its case. */
function hasTag(document: SearchDocument, tag: string): boolean {
  return document.tags.includes(tag) || (document.layer !== undefined && document.layer !== null && tag.toLowerCase() === document.layer);
}

/** A name as names compare: lower case, `-` read as `_` (an Agent Skills name finds its catalog spelling). */
function comparable(name: string): string {
  return name.toLowerCase().replace(/-/g, '_');
}
