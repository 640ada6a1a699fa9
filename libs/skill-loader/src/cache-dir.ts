import { accessSync, constants, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Bump when what the loader caches changes shape, so stale entries are never reused. */
const CACHE_VERSION = 'v1';

/**
 * Directory of the loader's on-disk caches (transpiled TypeScript, compiled example validators): the given
 * one, else node_modules/.cache/skill-loader/<version> next to the installed jiti, else the OS temp dir.
 * Returns null when caching is off (`false`) or no candidate is writable.
 */
export function resolveCacheDir(requested: string | false | undefined): string | null {
  if (requested === false) return null;
  const candidates = requested !== undefined ? [requested] : defaultCandidates();
  for (const candidate of candidates) {
    try {
      mkdirSync(candidate, { recursive: true });
      accessSync(candidate, constants.W_OK);
      return candidate;
    } catch {
      // Not writable: try the next one.
    }
  }
  return null;
}

function defaultCandidates(): string[] {
  const candidates: string[] = [];
  try {
    const jitiManifest = createRequire(import.meta.url).resolve('jiti/package.json');
    candidates.push(join(dirname(dirname(jitiManifest)), '.cache', 'skill-loader', CACHE_VERSION));
  } catch {
    // No node_modules to cache in.
  }
  candidates.push(join(tmpdir(), 'skill-loader-cache', CACHE_VERSION));
  return candidates;
}

/** A subdirectory of the cache directory, created on demand; null when caching is off. */
export function cacheSubdir(cacheDir: string | null, name: string): string | null {
  if (cacheDir === null) return null;
  try {
    mkdirSync(join(cacheDir, name), { recursive: true });
    return join(cacheDir, name);
  } catch {
    return null;
  }
}
