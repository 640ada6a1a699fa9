import { ENGINEERING_CORPUS } from './engineering-corpus.fixture.js';
import { DEPRECATED_PENALTY, bm25, idf } from './ranking.js';
import type { SearchDocument } from './search-document.js';
import { SearchIndex, type SearchQuery } from './search-index.js';

const names = (index: SearchIndex, query: SearchQuery) => index.search({ limit: 100, ...query }).items.map((hit) => hit.name);
const byName = (name: string) => ENGINEERING_CORPUS.find((doc) => doc.id === name) as SearchDocument;

describe('SearchIndex ranking on the engineering corpus', () => {
  const index = new SearchIndex(ENGINEERING_CORPUS);

  it.each([
    ['stress', ['run_fea_stress', 'check_stress_margin', 'legacy_margin_check']],
    ['firmware memory', ['check_memory_budget', 'generate_scaffold', 'validate_pinmap']],
    ['fea', ['run_fea_stress', 'mesh_quality_report']],
    ['thermal', ['thermal_derating', 'estimate_junction_temperature']],
    ['power temperature', ['estimate_junction_temperature', 'thermal_derating']],
    ['simulation', ['compare_results', 'mesh_quality_report', 'run_spice_transient']],
    ['pcb layout rules', ['check_drc', 'check_erc']],
    ['tolerance', ['tolerance_stackup', 'compare_results']],
    ['check', ['check_erc', 'check_drc', 'check_stress_margin', 'check_memory_budget', 'legacy_margin_check']],
    ['calculix.run_fea', ['run_fea_stress', 'run_spice_transient', 'mesh_quality_report', 'check_erc', 'check_drc']],
  ])('orders %j as expected', (text, expected) => {
    expect(names(index, { text })).toEqual(expected);
  });

  it('weights a name hit above the same term in the description only', () => {
    const [named, described] = index.search({ text: 'temperature' }).items;
    expect(named).toMatchObject({ name: 'estimate_junction_temperature', matched_fields: ['name', 'tags', 'description'] });
    expect(described).toMatchObject({ name: 'thermal_derating', matched_fields: ['description'] });
  });

  it('reports the fields each hit matched in, and drops documents that score zero', () => {
    const result = index.search({ text: 'kicad' });
    expect(result).toEqual({
      total: 2,
      items: [
        { name: 'check_drc', score: expect.any(Number), status: 'ACTIVE', matched_fields: ['tool_ids'] },
        { name: 'check_erc', score: expect.any(Number), status: 'ACTIVE', matched_fields: ['tool_ids'] },
      ],
    });
    expect(index.search({ text: 'quantum chromodynamics' })).toEqual({ items: [], total: 0 });
    expect(index.search({ text: 'the of and' })).toEqual({ items: [], total: 0 });
  });

  it('returns `limit` hits and counts every match in `total`', () => {
    const result = index.search({ text: 'check', limit: 2 });
    expect(result.items.map((hit) => hit.name)).toEqual(['check_erc', 'check_drc']);
    expect(result.total).toBe(5);
    expect(index.search({ text: 'check', limit: 0 })).toEqual({ items: [], total: 5 });
    expect(index.search({ text: 'check' }).items).toHaveLength(5);
  });
});

describe('score formula', () => {
  const doc = (id: string, description: string, tags: string[] = []): SearchDocument => ({
    id,
    name: id,
    description,
    tags,
    domain: 'optics',
    agent: 'optics',
    toolIds: [],
    status: 'ACTIVE',
    phase: 1,
  });

  it('is the weighted sum of per-field BM25 with whole-index statistics', () => {
    // name tokens: focus_lens → [focus, lens, focus_lens] (3); trace_rays → [trace, ray, trace_rays] (3)
    // description tokens: 'Lens lens focus' → 3; 'Traces rays' → 2; tags: ['lens'] → 1, [] → 0
    const index = new SearchIndex([doc('focus_lens', 'Lens lens focus', ['lens']), doc('trace_rays', 'Traces rays')]);
    const [hit] = index.search({ text: 'lens' }).items;
    const expected = 5 * bm25(idf(2, 1), 1, 3, 3) + 3 * bm25(idf(2, 1), 1, 1, 0.5) + 2 * bm25(idf(2, 1), 2, 3, 2.5);
    expect(hit).toEqual({
      name: 'focus_lens',
      score: expect.any(Number),
      status: 'ACTIVE',
      matched_fields: ['name', 'tags', 'description'],
    });
    expect(hit?.score).toBeCloseTo(expected, 12);
  });
});

describe('exact name match', () => {
  const umbrella: SearchDocument = {
    id: 'thermal',
    name: 'thermal',
    domain: 'mechanical',
    agent: 'mechanical',
    description: 'Old umbrella skill.',
    tags: [],
    toolIds: [],
    status: 'DEPRECATED',
    phase: 1,
  };
  const index = new SearchIndex([...ENGINEERING_CORPUS, umbrella]);

  it('ranks first even when other skills score higher', () => {
    const { items } = index.search({ text: 'thermal' });
    expect(items.map((hit) => hit.name)).toEqual(['thermal', 'thermal_derating', 'estimate_junction_temperature']);
    expect(items[0]?.score).toBeLessThan(items[1]?.score as number);
  });

  it('is case-insensitive and ignores surrounding blanks', () => {
    expect(names(index, { text: '  THERMAL ' })[0]).toBe('thermal');
  });

  it('only counts the whole query: a query that merely contains the name ranks by score', () => {
    expect(names(index, { text: 'thermal derating' })[0]).toBe('thermal_derating');
  });

  it('still obeys the filters', () => {
    expect(names(index, { text: 'thermal', domain: 'thermal' })).toEqual(['thermal_derating', 'estimate_junction_temperature']);
  });
});

describe('tie-breaks', () => {
  const twin = (name: string, status: SearchDocument['status']): SearchDocument => ({
    id: name,
    name,
    domain: 'optics',
    agent: 'optics',
    description: 'Traces rays through a lens stack.',
    tags: ['raytrace'],
    toolIds: [],
    status,
    phase: 1,
  });
  const twins = [
    twin('zeta_tracer', 'ACTIVE'),
    twin('alpha_tracer', 'ACTIVE'),
    twin('mid_tracer', 'REGISTERED'),
    twin('beta_tracer', 'ACTIVE'),
  ];

  it('orders equal scores by status rank, then by name', () => {
    const index = new SearchIndex([...ENGINEERING_CORPUS, ...twins]);
    const { items } = index.search({ text: 'raytrace lens' });
    expect(items.map((hit) => hit.name)).toEqual(['alpha_tracer', 'beta_tracer', 'zeta_tracer', 'mid_tracer']);
    expect(new Set(items.map((hit) => hit.score)).size).toBe(1);
  });

  it('gives the same order whatever order documents were added in', () => {
    const reference = new SearchIndex([...ENGINEERING_CORPUS, ...twins]).search({ text: 'raytrace check stress', limit: 100 });
    for (let seed = 1; seed <= 5; seed++) {
      const shuffled = shuffle([...ENGINEERING_CORPUS, ...twins], seed);
      expect(new SearchIndex(shuffled).search({ text: 'raytrace check stress', limit: 100 })).toEqual(reference);
    }
  });

  it('keeps the order when `limit` cuts inside a tie', () => {
    const index = new SearchIndex(shuffle([...twins], 7));
    expect(names(index, { text: 'raytrace', limit: 2 })).toEqual(['alpha_tracer', 'beta_tracer']);
  });
});

describe('deprecated skills', () => {
  const index = new SearchIndex(ENGINEERING_CORPUS);

  it('rank below an ACTIVE skill of equal relevance, by the documented penalty', () => {
    const [active, deprecated] = index.search({ text: 'material allowables' }).items;
    expect(active).toMatchObject({ name: 'check_stress_margin', status: 'ACTIVE' });
    expect(deprecated).toMatchObject({ name: 'legacy_margin_check', status: 'DEPRECATED' });
    expect((deprecated?.score as number) / (active?.score as number)).toBeCloseTo(DEPRECATED_PENALTY, 12);
  });

  it('still rank first when they match clearly better', () => {
    expect(names(index, { text: 'legacy margin' })[0]).toBe('legacy_margin_check');
  });
});

describe('filters', () => {
  const index = new SearchIndex(ENGINEERING_CORPUS);

  it('restrict by domain, agent, every tag, and phase ≤ n', () => {
    expect(names(index, { text: 'check', domain: 'electronics' })).toEqual(['check_erc', 'check_drc']);
    expect(names(index, { text: 'check', agent: 'firmware' })).toEqual(['check_memory_budget']);
    expect(names(index, { text: 'stress', tags: ['stress', 'margin'] })).toEqual(['check_stress_margin', 'legacy_margin_check']);
    expect(names(index, { text: 'stress', tags: ['stress', 'fea'] })).toEqual(['run_fea_stress']);
    expect(names(index, { text: 'check', phase: 1 })).toEqual([
      'check_erc',
      'check_stress_margin',
      'check_memory_budget',
      'legacy_margin_check',
    ]);
    expect(names(index, { text: 'mesh', phase: 2 })).toEqual([]);
    expect(names(index, { text: 'mesh', phase: 3 })).toEqual(['mesh_quality_report']);
  });

  it('leave DRAFT and ARCHIVED out unless the status filter asks for them', () => {
    expect(names(index, { text: 'bom' })).toEqual([]);
    expect(names(index, { text: 'bom', status: 'DRAFT' })).toEqual(['generate_bom']);
    expect(names(index, { text: 'fea' })).not.toContain('archived_fea_runner');
    expect(names(index, { text: 'fea', status: 'ARCHIVED' })).toEqual(['archived_fea_runner']);
    expect(names(index, { text: 'thermal', status: 'REGISTERED' })).toEqual(['estimate_junction_temperature']);
    expect(names(index, { text: 'stress', status: 'DEPRECATED' })).toEqual(['legacy_margin_check']);
  });

  it('do not change the scores: statistics are those of the whole index', () => {
    const unfiltered = index.search({ text: 'validation rule' }).items;
    const filtered = index.search({ text: 'validation rule', domain: 'electronics', tags: ['drc'] }).items;
    expect(filtered).toEqual([unfiltered.find((hit) => hit.name === 'check_drc')]);
  });

  it('combine: all given must hold', () => {
    expect(names(index, { text: 'runs', domain: 'electronics', phase: 1, tags: ['validation'] })).toEqual(['check_erc']);
  });
});

describe('incremental updates', () => {
  const queries: SearchQuery[] = [
    { text: 'stress' },
    { text: 'check', limit: 100 },
    { text: 'firmware memory' },
    { text: 'thermal power' },
    { text: 'fea', status: 'ARCHIVED' },
    { text: 'simulation circuit', phase: 2 },
    { text: 'schematic', status: 'DRAFT' },
    { text: 'check_memory_budget' },
    { text: 'optics raytrace lens' },
  ];
  const results = (index: SearchIndex) => queries.map((query) => index.search(query));

  it('give exactly the results of a rebuild after adds, replacements and removals', () => {
    const index = new SearchIndex(ENGINEERING_CORPUS.slice(0, 6));
    for (const doc of ENGINEERING_CORPUS.slice(6)) index.upsert(doc);
    index.upsert({ ...byName('check_stress_margin'), status: 'DEPRECATED' });
    index.upsert({ ...byName('estimate_junction_temperature'), status: 'ACTIVE', description: 'Estimates junction temperature quickly.' });
    expect(index.remove('validate_pinmap')).toBe(true);
    expect(index.remove('validate_pinmap')).toBe(false);
    index.upsert({ ...byName('compare_results'), id: 'trace_rays', name: 'trace_rays', domain: 'optics', tags: ['raytrace'] });
    index.remove('generate_scaffold');
    index.upsert(byName('generate_scaffold'));

    const finalDocuments = [
      ...ENGINEERING_CORPUS.filter((doc) => !['validate_pinmap', 'check_stress_margin', 'estimate_junction_temperature'].includes(doc.id)),
      { ...byName('check_stress_margin'), status: 'DEPRECATED' as const },
      { ...byName('estimate_junction_temperature'), status: 'ACTIVE' as const, description: 'Estimates junction temperature quickly.' },
      { ...byName('compare_results'), id: 'trace_rays', name: 'trace_rays', domain: 'optics', tags: ['raytrace'] },
    ];
    const rebuilt = new SearchIndex(shuffle(finalDocuments, 3));
    expect(index.size).toBe(rebuilt.size);
    expect(results(index)).toEqual(results(rebuilt));
  });

  it('apply a status change to the very next search', () => {
    const index = new SearchIndex(ENGINEERING_CORPUS);
    expect(names(index, { text: 'material allowables' })).toEqual(['check_stress_margin', 'legacy_margin_check']);
    index.upsert({ ...byName('check_stress_margin'), status: 'DEPRECATED' });
    index.upsert({ ...byName('legacy_margin_check'), status: 'ACTIVE' });
    expect(names(index, { text: 'material allowables' })).toEqual(['legacy_margin_check', 'check_stress_margin']);
    index.upsert({ ...byName('legacy_margin_check'), status: 'ARCHIVED' });
    expect(names(index, { text: 'material allowables' })).toEqual(['check_stress_margin']);
  });

  it('forget removed documents entirely, including their exact-name match', () => {
    const index = new SearchIndex(ENGINEERING_CORPUS);
    index.remove('check_erc');
    expect(index.has('check_erc')).toBe(false);
    expect(names(index, { text: 'check_erc' })).not.toContain('check_erc');
    expect(names(index, { text: 'erc' })).toEqual([]);
    const empty = new SearchIndex();
    expect(empty.search({ text: 'anything' })).toEqual({ items: [], total: 0 });
  });
});

/** Deterministic Fisher–Yates (mulberry32), so a failing order can be reproduced. */
function shuffle<T>(items: T[], seed: number): T[] {
  let state = seed >>> 0;
  const random = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [items[i], items[j]] = [items[j] as T, items[i] as T];
  }
  return items;
}
