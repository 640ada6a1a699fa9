import { readFile } from 'node:fs/promises';
import { basename, dirname, resolve } from 'node:path';
import { type FSWatcher, watch } from 'chokidar';
import type { HookPorts } from './file-hooks.js';
import { type HookDefinition, parseHooksFile } from './hook-file.js';
import { HookSet } from './hook-set.js';

/** What a reload did: `reloaded` with the hooks it read, `kept` the last good set (the file is bad or gone). */
export type HooksReload = { outcome: 'reloaded'; hooks: number } | { outcome: 'kept'; reason: string };

export interface HooksFileOptions {
  /** HOOKS_FILE, as the configuration read it at start (null: no file, no file hooks). */
  file: { path: string; hooks: HookDefinition[] } | null;
  featureFlags: ReadonlySet<string>;
  ports: HookPorts;
  /** How long the file must be quiet before it is read again. */
  debounceMs?: number;
  onReload?: (reload: HooksReload) => void;
}

/**
 * The current HookSet, read from HOOKS_FILE at start and again whenever the file changes (a moment after it is
 * quiet). A change that does not validate keeps the last good set (and says why); so does a removed file, until
 * it is back. Callers take `current` once per run, so a run keeps the hooks it started with.
 */
export class HooksFileSource {
  private set: HookSet;
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> = Promise.resolve();

  constructor(private readonly options: HooksFileOptions) {
    this.set = new HookSet(options.file?.hooks ?? [], options.featureFlags, options.ports);
  }

  get current(): HookSet {
    return this.set;
  }

  /** Starts watching the file (when there is one); resolves once the watcher is ready. */
  async start(): Promise<void> {
    const file = this.options.file;
    if (!file || this.watcher) return;
    // Its directory, for the file however an editor saves it (in place, or a new file renamed over it: a watch
    // of the file alone ends with the inode it was on).
    const target = resolve(file.path);
    const watcher = watch(dirname(target), {
      ignoreInitial: true,
      depth: 0,
      ignored: (candidate) => candidate !== dirname(target) && basename(candidate) !== basename(target),
    });
    this.watcher = watcher;
    watcher.on('all', (_event, changed) => {
      if (resolve(changed) === target) this.schedule();
    });
    watcher.on('error', (error) => this.options.onReload?.({ outcome: 'kept', reason: `watching failed: ${(error as Error).message}` }));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
  }

  /** Resolves when every reload scheduled so far has run. */
  settled(): Promise<void> {
    return this.reading;
  }

  async stop(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    this.watcher = null;
    await this.reading;
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.reading = this.reading.then(async () => void (await this.reload()));
    }, this.options.debounceMs ?? 100);
  }

  /** Reads the file again now; keeps the last good set when it cannot be used. */
  async reload(): Promise<HooksReload> {
    const path = this.options.file?.path;
    if (!path) return { outcome: 'kept', reason: 'no HOOKS_FILE' };
    let result: HooksReload;
    try {
      const hooks = parseHooksFile(await readFile(path, 'utf8'), path);
      this.set = new HookSet(hooks, this.options.featureFlags, this.options.ports);
      result = { outcome: 'reloaded', hooks: hooks.length };
    } catch (error) {
      result = { outcome: 'kept', reason: (error as Error).message };
    }
    this.options.onReload?.(result);
    return result;
  }
}
