import { Inject, Injectable, Logger, type OnApplicationShutdown } from '@nestjs/common';
import { type FSWatcher, watch } from 'chokidar';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';
import { DiscoveryService } from './discovery.service.js';
import { resolveRoots } from './package-paths.js';

const WATCH_ACTOR = 'system:watch';
/** Folders whose changes never change a package (see the package store's file rules). */
const IGNORED = /(^|[/\\])(node_modules|dist|\.[^/\\]+)([/\\]|$)/;

/**
 * Live reload for development (`SKILL_WATCH=true`): watches the SKILL_PATHS roots and, a moment
 * (`SKILL_WATCH_DEBOUNCE_MS`) after files stop changing, rescans them through discovery — the same
 * immutability, validation and dependency rules as any registration — and logs what changed.
 */
@Injectable()
export class SkillWatcher implements OnApplicationShutdown {
  private readonly logger = new Logger(SkillWatcher.name);
  private watcher: FSWatcher | null = null;
  private timer: NodeJS.Timeout | undefined;
  private changed = new Set<string>();
  private rescans: Promise<unknown> = Promise.resolve();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly discovery: DiscoveryService,
  ) {}

  /** Starts watching when SKILL_WATCH is on; resolves once the watcher is ready. */
  async start(): Promise<void> {
    if (!this.config.SKILL_WATCH) return;
    const roots = (await resolveRoots(this.config.SKILL_PATHS)).flatMap((root) => (root.resolved ? [root.resolved] : []));
    const watcher = watch(roots, { ignored: (path) => IGNORED.test(path), ignoreInitial: true });
    this.watcher = watcher;
    watcher.on('all', (_event, path) => this.schedule(path));
    watcher.on('error', (error) => this.logger.warn(`watching SKILL_PATHS failed: ${(error as Error).message}`));
    await new Promise<void>((resolve) => watcher.once('ready', () => resolve()));
    this.logger.log(`watching ${roots.join(', ')} for package changes (SKILL_WATCH)`);
  }

  /** Resolves when every rescan scheduled so far has run (tests, shutdown). */
  settled(): Promise<unknown> {
    return this.rescans;
  }

  private schedule(path: string): void {
    this.changed.add(path);
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      const paths = [...this.changed];
      this.changed.clear();
      this.rescans = this.rescans.then(() => this.rescan(paths));
    }, this.config.SKILL_WATCH_DEBOUNCE_MS);
  }

  private async rescan(paths: string[]): Promise<void> {
    try {
      const report = await this.discovery.discover(WATCH_ACTOR);
      const touched = report.packages.filter((entry) => entry.outcome !== 'unchanged');
      for (const entry of touched) {
        const what = `${entry.name || entry.path} ${entry.version}`.trim();
        this.logger.log(
          `live reload: ${what} ${entry.outcome}${entry.status ? ` (${entry.status})` : ''}${entry.message ? `: ${entry.message}` : ''}`,
        );
      }
      for (const version of report.archived_versions)
        this.logger.log(`live reload: ${version.name} ${version.version} archived (package removed)`);
      if (touched.length === 0 && report.archived === 0)
        this.logger.debug(`live reload: ${paths.length} file change(s), no package changed`);
    } catch (error) {
      this.logger.warn(`live reload failed: ${(error as Error).message}`);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    clearTimeout(this.timer);
    await this.watcher?.close();
    await this.rescans.catch(() => undefined);
  }
}
