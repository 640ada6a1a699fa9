import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { lookup } from 'mime-types';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/** One file of the built console, held in memory with its gzip variant (the whole console is well under 2 MB). */
export interface ConsoleFile {
  body: Buffer;
  /** The body gzipped (level 9), made on first use; null when not worth it (small or not compressible). */
  readonly gzip: Buffer | null;
  mediaType: string;
  etag: string;
  /** Vite names what it emits under assets/ by their content hash: such a file never changes. */
  immutable: boolean;
}

/** Files past this size are not the console's (a stray file in CONSOLE_DIR): skipped, not held in memory. */
const MAX_FILE_BYTES = 4 * 1024 * 1024;
const COMPRESSIBLE = /^(text\/|application\/(javascript|json|manifest\+json)|image\/svg\+xml)/;

/**
 * The console's static files (apps/console, built into CONSOLE_DIR by `npm start` and `npm test`), read
 * once at start (each compressed on first use). A path that is no file is a page of the single-page app: it gets index.html, whose
 * router shows the page (or its own "not found"); a missing file under assets/ is a 404.
 */
@Injectable()
export class ConsoleAssets {
  private readonly logger = new Logger(ConsoleAssets.name);
  private readonly files = new Map<string, ConsoleFile>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const root = path.resolve(config.CONSOLE_DIR);
    if (!statSync(path.join(root, 'index.html'), { throwIfNoEntry: false })?.isFile()) {
      this.logger.warn(`no console at ${root} (run npm start or node scripts/build-if-changed.mjs): /console answers 404`);
      return;
    }
    this.load(root, '');
  }

  /** The file for a path under /console (without the prefix, no leading slash), index.html for a page, or null. */
  find(relative: string): ConsoleFile | null {
    const file = this.files.get(relative);
    if (file) return file;
    if (relative.startsWith('assets/') || /\.[a-z0-9]+$/i.test(relative)) return null;
    return this.files.get('index.html') ?? null;
  }

  private load(root: string, prefix: string): void {
    for (const entry of readdirSync(path.join(root, prefix), { withFileTypes: true })) {
      const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
      if (entry.isDirectory()) this.load(root, relative);
      if (!entry.isFile()) continue; // links and the like are not served
      const body = readFileSync(path.join(root, relative));
      if (body.length > MAX_FILE_BYTES) continue;
      const mediaType = lookup(entry.name) || 'application/octet-stream';
      const textual = mediaType.startsWith('text/') || mediaType === 'application/javascript' || mediaType === 'application/json';
      // Compressed on the first request that accepts it rather than for every file at every start.
      let gzip: Buffer | null | undefined = COMPRESSIBLE.test(mediaType) && body.length > 1024 ? undefined : null;
      this.files.set(relative, {
        body,
        get gzip() {
          if (gzip === undefined) gzip = gzipSync(body, { level: 9 });
          return gzip;
        },
        mediaType: textual ? `${mediaType}; charset=utf-8` : mediaType,
        etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
        immutable: relative.startsWith('assets/'),
      });
    }
  }
}
