import { Injectable } from '@nestjs/common';
import { SKILL_STATUSES } from '#contracts/index.js';
import type { ValidationIssue } from '#skill-loader/index.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import { DiscoveryService } from '../versions/discovery.service.js';
import { refusedPackages } from '../versions/report-against-catalog.js';

/** The admin's overview of the catalog, computed from the in-process read model and the last discovery's report. */
@Injectable()
export class RegistryHealthReport {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly discovery: DiscoveryService,
  ) {}

  build() {
    const byStatus = Object.fromEntries(SKILL_STATUSES.map((status) => [status, 0])) as Record<string, number>;
    const byDomain: Record<string, number> = {};
    const byAgent: Record<string, number> = {};
    const drafts: { name: string; version: string; first_error: ValidationIssue | null; errors: number }[] = [];
    let versions = 0;
    for (const skill of this.catalog.all()) {
      for (const version of skill.versions) {
        versions++;
        byStatus[version.status] = (byStatus[version.status] ?? 0) + 1;
        if (version.status === 'ARCHIVED') continue;
        byDomain[version.domain] = (byDomain[version.domain] ?? 0) + 1;
        if (version.agent) byAgent[version.agent] = (byAgent[version.agent] ?? 0) + 1;
        if (version.status === 'DRAFT') {
          const errors = version.validation.filter((issue) => issue.severity === 'error');
          drafts.push({
            name: version.name,
            version: version.version,
            first_error: errors[0] ?? null,
            errors: errors.length,
          });
        }
      }
    }
    return {
      skills: this.catalog.size,
      versions,
      by_status: byStatus,
      by_domain: byDomain,
      by_agent: byAgent,
      drafts,
      // The packages the last discovery refused, each with why (its log names them too).
      refused: refusedPackages(this.discovery.lastReport?.packages ?? []),
    };
  }
}
