import { LAYER_MULTIPLIER } from './ranking.js';
import type { SearchDocument } from './search-document.js';
import { SearchIndex, type SearchQuery } from './search-index.js';
import { SEED_004_CORPUS } from './seed-004-corpus.fixture.js';

/** Seed 004, "How `search_skills` ranks results" and "Layered Skill Architecture": its examples as tests. */
const index = new SearchIndex(SEED_004_CORPUS);
const names = (query: Partial<SearchQuery>) => index.search({ text: '', limit: 100, ...query }).items.map((hit) => hit.name);

describe("seed 004's search examples", () => {
  it('catalog.search_skills(query="geometry", tags=["create"], dcc="maya"): filters apply before scoring', () => {
    expect(names({ text: 'geometry', tags: ['create'], dcc: 'maya' })).toEqual(['maya_geometry']);
    // Without the dcc filter the Blender skill of the same tag shows too.
    expect(names({ text: 'geometry', tags: ['create'] }).sort()).toEqual(['blender_geometry', 'maya_geometry']);
  });

  it('search_skills("dcc-diagnostics") surfaces the infrastructure diagnostics skill first, by its Agent Skills name', () => {
    expect(names({ text: 'dcc-diagnostics' })[0]).toBe('dcc_diagnostics');
    expect(index.search({ text: ' DCC-Diagnostics ' }).items[0]?.name).toBe('dcc_diagnostics');
  });

  it('search_skills(tags=["infrastructure"]) browses infrastructure skills, search_skills(tags=["thin-harness"]) the thin harnesses', () => {
    expect(names({ tags: ['infrastructure'] })).toEqual(['dcc_diagnostics', 'usd_tools', 'workflow']);
    expect(names({ tags: ['thin-harness'] })).toEqual(['maya_python_shell']);
    // Layer names read as tags whatever their case.
    expect(names({ tags: ['Thin-Harness'] })).toEqual(['maya_python_shell']);
  });

  it('search_skills(tags=["domain"], dcc="maya") browses the Maya domain skills', () => {
    expect(names({ tags: ['domain'], dcc: 'maya' })).toEqual(['maya_cleanup', 'maya_geometry', 'maya_pipeline']);
  });

  it('leaves example skills out, unless asked for by tags=["example"] or by their exact name', () => {
    expect(names({ text: 'sphere' })).not.toContain('async_tool_demo');
    expect(names({ text: 'deferred hint' })).toEqual([]);
    expect(names({ tags: ['example'] })).toEqual(['async_tool_demo']);
    expect(names({ text: 'sphere', tags: ['example'] })).toEqual(['async_tool_demo']);
    // The exact name brings it back, first; other skills still match its words.
    expect(names({ text: 'async-tool-demo' })[0]).toBe('async_tool_demo');
  });

  it('ranks a domain skill above a thin harness on the same words, and lifts the multiplier when the layer is asked for', () => {
    const ranked = names({ text: 'geometry' });
    expect(ranked.indexOf('maya_geometry')).toBeLessThan(ranked.indexOf('maya_python_shell'));
    const damped = index.search({ text: 'geometry python' }).items.find((hit) => hit.name === 'maya_python_shell');
    const raw = index.search({ text: 'geometry python', tags: ['thin-harness'] }).items[0];
    expect(raw?.name).toBe('maya_python_shell');
    expect(damped?.score).toBeCloseTo((raw?.score as number) * LAYER_MULTIPLIER['thin-harness'], 12);
  });

  it('matches the dcc field and the products: dcc="houdini" finds the skill that lists it among its products', () => {
    expect(names({ dcc: 'houdini' })).toEqual(['maya_cleanup']);
    expect(names({ dcc: 'MAYA', tags: ['cleanup'] })).toEqual(['maya_cleanup']);
    const [hit] = index.search({ text: 'blender' }).items;
    expect(hit).toMatchObject({ name: 'blender_geometry', matched_fields: expect.arrayContaining(['dcc']) });
  });
});

describe("seed 004's multipliers and tie-breaks, exactly", () => {
  const twin = (name: string, fields: Partial<SearchDocument> = {}): SearchDocument => ({
    id: name,
    name,
    description: 'mesh repair',
    tags: [],
    domain: 'd',
    agent: 'a',
    toolIds: [],
    status: 'ACTIVE',
    phase: 1,
    ...fields,
  });

  it('multiplies scores by the layer: infrastructure × 0.35, thin-harness × 0.20, a skill without layer as domain', () => {
    const layered = new SearchIndex([
      twin('aa', { layer: 'domain' }),
      twin('bb', { layer: 'infrastructure' }),
      twin('cc', { layer: 'thin-harness' }),
      twin('dd'),
    ]);
    const scores = Object.fromEntries(layered.search({ text: 'repair' }).items.map((hit) => [hit.name, hit.score]));
    expect(scores.bb).toBeCloseTo((scores.aa as number) * 0.35, 12);
    expect(scores.cc).toBeCloseTo((scores.aa as number) * 0.2, 12);
    expect(scores.dd).toBe(scores.aa);
  });

  it('puts a name that contains the query above an equal score, then the higher scope (admin > system > user > repo)', () => {
    const ties = new SearchIndex([
      twin('alpha', { scope: 'repo' }),
      twin('zmeshz', { scope: 'repo' }),
      twin('beta', { scope: 'user' }),
      twin('gamma', { scope: 'admin' }),
      twin('delta'),
    ]);
    expect(ties.search({ text: 'mesh' }).items.map((hit) => hit.name)).toEqual(['zmeshz', 'gamma', 'delta', 'beta', 'alpha']);
  });

  it('matches dcc only as a whole token (no part of a joined name)', () => {
    const hosts = new SearchIndex([twin('fx_tool', { dcc: 'houdini-fx' }), twin('plain_tool', { dcc: 'houdini' })]);
    expect(hosts.search({ text: 'houdini' }).items.map((hit) => hit.name)).toEqual(['plain_tool']);
    // The query's own parts still match whole dcc tokens: houdini-fx finds both, the exact host first.
    expect(hosts.search({ text: 'houdini-fx' }).items.map((hit) => hit.name)).toEqual(['fx_tool', 'plain_tool']);
  });
});
