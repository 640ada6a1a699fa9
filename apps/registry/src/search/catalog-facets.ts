import { Injectable } from '@nestjs/common';
import { AdapterToolDirectory } from '../adapter-tools/adapter-tool-directory.js';
import { SkillCatalog } from '../catalog/skill-catalog.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import type { CatalogFacetsQuery } from './search.dto.js';
import type { CatalogFacetsView } from './facets.views.js';
import { SkillSearchIndex } from './skill-search-index.js';

/**
 * GET /v1/facets: how the skills a catalog view shows divide by domain, agent, phase, status, format, tag and
 * tool availability. The skills are the ones the same view lists: every match of the ranked search when there
 * is a query (its rules, SkillSearchIndex), else the list's filter (its rules, SkillCatalog.list).
 */
@Injectable()
export class CatalogFacets {
  constructor(
    private readonly catalog: SkillCatalog,
    private readonly index: SkillSearchIndex,
    private readonly tools: AdapterToolDirectory,
  ) {}

  async count(query: CatalogFacetsQuery): Promise<CatalogFacetsView> {
    const filter = { domain: query.domain, agent: query.agent, phase: query.phase, status: query.status, tags: query.tag };
    const everything = Math.max(1, this.catalog.size);
    const versions: SkillVersionRecord[] =
      query.q === undefined
        ? this.catalog.list({ ...filter, limit: everything }).items.map((item) => item.current)
        : this.index.search({ text: query.q, ...filter, limit: everything }).hits.map((hit) => hit.version);
    const toolStates = await Promise.all(versions.map((version) => this.toolState(version)));
    return {
      total: versions.length,
      facets: {
        domain: tally(versions.map((version) => [version.domain])),
        agent: tally(versions.map((version) => [version.agent])),
        phase: tally(versions.map((version) => [String(version.phase)])),
        status: tally(versions.map((version) => [version.status])),
        format: tally(versions.map((version) => [version.format])),
        tag: tally(versions.map((version) => version.tags)),
        tools: tally(toolStates.map((state) => [state])),
      },
    };
  }

  private async toolState(version: SkillVersionRecord): Promise<string> {
    const required = version.toolsRequired.filter((tool) => tool.required !== false);
    if (required.length === 0) return 'none required';
    const status = await this.tools.statusOf(required);
    return status.every((tool) => tool.available && !tool.disabled) ? 'all available' : 'some unavailable';
  }
}

function tally(valuesPerSkill: readonly (readonly string[])[]): { value: string; count: number }[] {
  const counts = new Map<string, number>();
  for (const values of valuesPerSkill) for (const value of new Set(values)) counts.set(value, (counts.get(value) ?? 0) + 1);
  return [...counts]
    .map(([value, count]) => ({ value, count }))
    .sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0));
}
