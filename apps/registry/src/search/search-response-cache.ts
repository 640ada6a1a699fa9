import { Injectable } from '@nestjs/common';

const MAX_CACHED_RESPONSES = 1024;

/**
 * Response bodies of GET /v1/search remembered per catalog generation: agents repeat the same
 * searches, and while the catalog is unchanged the same query ranks the same way, so a repeat costs
 * a Map lookup instead of a BM25 pass over the catalog. Any catalog change (from any replica) moves
 * the generation and empties the cache. Bounded: the oldest entries go first.
 */
@Injectable()
export class SearchResponseCache {
  private readonly responses = new Map<string, string>();
  private generation = -1;

  get(generation: number, key: string, build: () => string): string {
    if (generation !== this.generation) {
      this.responses.clear();
      this.generation = generation;
    }
    let body = this.responses.get(key);
    if (body === undefined) {
      body = build();
      if (this.responses.size >= MAX_CACHED_RESPONSES) this.responses.delete(this.responses.keys().next().value as string);
      this.responses.set(key, body);
    }
    return body;
  }
}
