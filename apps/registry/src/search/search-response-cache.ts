import { Injectable } from '@nestjs/common';
import { LRUCache } from 'lru-cache';
import { type JsonRead, jsonRead } from '../skills/conditional-get.js';

const MAX_CACHED_RESPONSES = 1024;

/**
 * Response bodies of GET /v1/search remembered per catalog generation: agents repeat the same
 * searches, and while the catalog is unchanged the same query ranks the same way, so a repeat costs
 * a Map lookup instead of a BM25 pass over the catalog (and a hash for its ETag). Any catalog change (from any replica) moves
 * the generation and empties the cache. Bounded: the least recently used go first.
 */
@Injectable()
export class SearchResponseCache {
  private readonly responses = new LRUCache<string, JsonRead>({ max: MAX_CACHED_RESPONSES });
  private generation = -1;

  get(generation: number, key: string, build: () => string): JsonRead {
    if (generation !== this.generation) {
      this.responses.clear();
      this.generation = generation;
    }
    let read = this.responses.get(key);
    if (read === undefined) {
      read = jsonRead(build());
      this.responses.set(key, read);
    }
    return read;
  }
}
