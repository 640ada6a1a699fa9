import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { PrismaClient } from '#database/index.js';
import { SkillCatalog } from '../../apps/registry/src/catalog/skill-catalog.js';
import { PRISMA } from '../../apps/registry/src/catalog/skills.repository.js';
import { DiscoveryService } from '../../apps/registry/src/versions/discovery.service.js';

/**
 * What a failing catalog-dependent step needs to be understood without a rerun (issue 30 showed only
 * "no version 1.0.0"): the last discovery's report, the in-process catalog, and the rows in Postgres —
 * a version in the rows but not in the catalog is the catalog's fault, one missing from both discovery's.
 */
export async function describeCatalog(app: NestFastifyApplication): Promise<string> {
  const report = app.get(DiscoveryService).lastReport;
  const lines = ['discovery report (last full scan):'];
  if (!report) lines.push('  (none: the start-up discovery has not finished)');
  for (const entry of report?.packages ?? []) {
    const what = entry.name ? `${entry.name} ${entry.version}` : '(unnamed)';
    const why = entry.refusal ? ` ${entry.refusal}` : '';
    lines.push(`  ${entry.outcome}${why} ${what} ${entry.status ?? '-'} at ${entry.path}${entry.message ? `: ${entry.message}` : ''}`);
  }
  lines.push('catalog (in process):');
  for (const skill of app.get(SkillCatalog).all()) {
    lines.push(`  ${skill.name}: ${skill.versions.map((v) => `${v.version} ${v.status} (lock ${v.lockVersion})`).join(', ')}`);
  }
  lines.push('database rows (skill_versions):');
  try {
    const rows = await app.get<PrismaClient>(PRISMA).$queryRaw<{ name: string; version: string; status: string; lock_version: number }[]>`
      SELECT s.name, v.version, v.status::text AS status, v.lock_version FROM skill_versions v JOIN skills s ON s.id = v.skill_id
      ORDER BY s.name, v.version_major, v.version_minor, v.version_patch, v.version_prerelease`;
    for (const row of rows) lines.push(`  ${row.name} ${row.version} ${row.status} (lock ${row.lock_version})`);
  } catch (error) {
    lines.push(`  (could not read them: ${(error as Error).message})`);
  }
  return lines.join('\n');
}
