import type { DiscoveryReport } from '../versions/discovery.service.js';
import {
  type CatalogLookup,
  missingFromCatalog,
  packageLabel,
  refusedPackages,
  storedEntries,
} from '../versions/report-against-catalog.js';

/**
 * What /readyz's `catalog` check found: counts when up, each problem when down. Counts only when up:
 * /readyz answers without a token, so the report's paths stay in GET /v1/health.
 */
export type CatalogReadiness =
  | { up: true; data: { packages: number; stored: number; drafts: number; refused: number } }
  | { up: false; data: { message: string; problems: string[] } };

/**
 * Ready means every package found on disk is in the catalog as registered (in any status it has
 * moved to since), as a DRAFT with the validation report that says why, or refused with its reason —
 * nothing lost between the database and the in-process catalog that reads answer from (issue 30).
 */
export function catalogReadiness(report: DiscoveryReport | null, catalog: CatalogLookup): CatalogReadiness {
  if (!report) return down(['the start-up discovery of SKILL_PATHS has not finished']);
  const problems: string[] = [];
  for (const entry of missingFromCatalog(report.packages, catalog)) {
    problems.push(`${packageLabel(entry)} is stored (${entry.outcome}) but not in the catalog`);
  }
  let drafts = 0;
  for (const entry of storedEntries(report.packages)) {
    const held = catalog.version(entry.name, entry.version);
    if (held?.status !== 'DRAFT') continue;
    drafts++;
    if (!held.validation.some((issue) => issue.severity === 'error'))
      problems.push(`${packageLabel(entry)} is DRAFT without a validation error`);
  }
  const refused = refusedPackages(report.packages);
  for (const entry of refused)
    if (!entry.reason.trim()) problems.push(`${packageLabel(entry)} was refused (${entry.refusal}) without a reason`);
  if (problems.length) return down(problems);
  return {
    up: true,
    data: { packages: report.packages.length, stored: storedEntries(report.packages).length, drafts, refused: refused.length },
  };
}

function down(problems: string[]): CatalogReadiness {
  return { up: false, data: { message: problems.join('; '), problems } };
}
