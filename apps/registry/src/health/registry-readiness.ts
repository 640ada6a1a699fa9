import { Injectable } from '@nestjs/common';
import { HealthCheckService, HealthIndicatorService, type HealthCheckResult } from '@nestjs/terminus';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { DiscoveryService } from '../versions/discovery.service.js';
import { catalogReadiness } from './catalog-readiness.js';
import { DatabaseReadiness } from './database-readiness.js';

/**
 * GET /readyz's checks: the database answers, every migration is applied, and every package discovery found
 * is in the catalog (registered, or DRAFT with its report) or refused with its reason. Terminus answers 503
 * with the failing check's details when one is down.
 */
@Injectable()
export class RegistryReadiness {
  constructor(
    private readonly health: HealthCheckService,
    private readonly indicators: HealthIndicatorService,
    private readonly catalog: SkillCatalog,
    private readonly database: DatabaseReadiness,
    private readonly discovery: DiscoveryService,
  ) {}

  check(): Promise<HealthCheckResult> {
    return this.health.check([
      () =>
        this.indicators
          .check('database')
          .attempt(() => this.database.ping())
          .withTimeout(2000),
      () =>
        this.indicators
          .check('migrations')
          .attempt(async () => {
            const missing = await this.database.pendingMigrations();
            if (missing.length) throw new Error(`pending migrations: ${missing.join(', ')}`);
            return { skills_loaded: this.catalog.size };
          })
          .withTimeout(2000),
      () => {
        const catalog = catalogReadiness(this.discovery.lastReport, this.catalog);
        const session = this.indicators.check('catalog');
        return catalog.up ? session.up(catalog.data) : session.down(catalog.data);
      },
    ]);
  }
}
