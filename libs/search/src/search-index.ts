import { DEPRECATED_PENALTY, EXCLUDED_BY_DEFAULT, STATUS_RANK, TopK, bm25, idf, type RankedCandidate, type SearchHit } from './ranking.js';
import { FIELD_WEIGHTS, SEARCH_FIELDS, fieldText, type SearchDocument, type SearchField, type SearchStatus } from './search-document.js';
import { tokenize } from './tokenizer.js';

/** Filters restrict the candidate set before scoring; every one given must hold. */
interface SearchFilter {
  domain?: string;
  agent?: string;
  /** Every tag must be on the skill (exact, case-sensitive, like the list endpoint). */
  tags?: readonly string[];
  /** Only this status; without it every status but DRAFT and ARCHIVED. */
  status?: SearchStatus;
  /** Only skills usable at this phase (the skill's phase ≤ n). */
  phase?: number;
}

export interface SearchQuery extends SearchFilter {
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
  // One bit per SEARCH_FIELDS entry (11 now; 16 fit).
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
      const tokens = tokenize(fieldText(document, SEARCH_FIELDS[f] as SearchField));
      const frequencies = new Map<string, number>();
      for (const token of tokens) frequencies.set(token, (frequencies.get(token) ?? 0) + 1);
      const field = this.fields[f] as FieldStatistics;
      for (const [term, frequency] of frequencies) {
        let posting = field.postings.get(term);
        if (!posting) field.postings.set(term, (posting = { slots: [], frequencies: [] }));
        posting.slots.push(slot);
        posting.frequencies.push(frequency);
      }
      field.lengths[slot] = tokens.length;
      field.totalLength += tokens.length;
      termFrequencies.push(frequencies);
    }
    this.entries[slot] = {
      document,
      termFrequencies,
      statusRank: STATUS_RANK[document.status],
      penalty: document.status === 'DEPRECATED' ? DEPRECATED_PENALTY : 1,
    };
    this.slotById.set(document.id, slot);
    const lowerName = document.name.toLowerCase();
    let sameName = this.slotsByLowerName.get(lowerName);
    if (!sameName) this.slotsByLowerName.set(lowerName, (sameName = new Set()));
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
    const lowerName = entry.document.name.toLowerCase();
    const sameName = this.slotsByLowerName.get(lowerName) as Set<number>;
    sameName.delete(slot);
    if (sameName.size === 0) this.slotsByLowerName.delete(lowerName);
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

    const admitted = (slot: number): boolean => {
      const verdict = verdicts[slot];
      if (verdict !== NOT_EVALUATED) return verdict === ADMITTED;
      const ok = admits((this.entries[slot] as Entry).document, query);
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

    const exactSlots = this.slotsByLowerName.get(query.text.trim().toLowerCase());
    const top = new TopK<Candidate>(limit);
    let total = 0;
    // One probe object is reused for the comparison; a candidate is only allocated when kept.
    const probe: Candidate = { slot: -1, id: '', name: '', exact: false, score: 0, statusRank: 0 };
    const consider = (slot: number, exact: boolean): void => {
      const entry = this.entries[slot] as Entry;
      const score = (scores[slot] as number) * entry.penalty;
      if (score <= 0 && !exact) return;
      total++;
      probe.slot = slot;
      probe.id = entry.document.id;
      probe.name = entry.document.name;
      probe.exact = exact;
      probe.score = score;
      probe.statusRank = entry.statusRank;
      if (top.admits(probe)) top.offer({ ...probe });
    };
    for (const slot of touched) consider(slot, exactSlots?.has(slot) ?? false);
    for (const slot of exactSlots ?? []) {
      if (fieldMasks[slot] === 0 && admitted(slot)) consider(slot, true);
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
  if (filter.tags !== undefined && !filter.tags.every((tag) => document.tags.includes(tag))) return false;
  return true;
}
