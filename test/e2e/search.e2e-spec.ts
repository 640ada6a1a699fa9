import { rm } from 'node:fs/promises';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

const MARGIN_DESCRIPTION = 'Checks computed stresses against material allowables and reports the margin of safety.';

describe('ranked search over REST', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const admin = { token: ADMIN_TOKEN };
  const queuePrefix = `test-search-${process.pid}-${Date.now()}`;
  // Promotion normally runs the examples through the executor; ranking is what is under test here.
  const forcedPromotion = { ...admin, body: { force: true, reason: 'search e2e: examples are not under test' } };

  beforeAll(async () => {
    db = await createTestDatabase('search');
    root = await tempRoot();
    const skill = (name: string, domain: string, description: string, tags: string[], extra: Record<string, unknown> = {}) =>
      writeEchoSkill(root, { name, domain, definition: { description, tags, ...extra } });
    await skill('stress_margin_check', 'mechanical', MARGIN_DESCRIPTION, ['stress', 'margin']);
    await skill('legacy_margin_check', 'mechanical', MARGIN_DESCRIPTION, ['stress', 'margin']);
    await skill(
      'run_fea_stress',
      'mechanical',
      'Runs a linear static FEA stress analysis and reports the peak von Mises stress.',
      ['fea', 'stress'],
      {
        phase: 2,
        tools_required: [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis', required: true }],
      },
    );
    await skill('thermal_derating', 'thermal', 'Derates component power ratings for ambient temperature and airflow.', [
      'thermal',
      'power',
    ]);
    await skill(
      'validate_pinmap',
      'firmware',
      'Validates an MCU pin map against the datasheet and electrical limits.',
      ['firmware', 'pinmap'],
      {
        agent: 'embedded',
      },
    );
    await skill('thermal', 'legacy', 'Old umbrella skill kept for compatibility.', ['umbrella']);
    await writeEchoSkill(root, {
      name: 'draft_stress_probe',
      domain: 'mechanical',
      definition: { description: 'Probes stress concentrations (broken example on purpose).', tags: ['stress'] },
      examples: [{ input: { txt: 'not the schema' } }],
    });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
  });

  afterAll(async () => {
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const search = (query: string) => call(registry.baseUrl, 'GET', `/v1/search?${query}`);
  const names = async (query: string) => {
    const { status, body } = await search(query);
    expect(status).toBe(200);
    return body.items.map((item: { name: string }) => item.name);
  };

  it('ranks by weighted BM25 and returns the documented item shape', async () => {
    const { status, headers, body } = await search('q=stress');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toContain('application/json');
    expect(body.items.map((item: { name: string }) => item.name)).toEqual(['run_fea_stress', 'stress_margin_check', 'legacy_margin_check']);
    expect(body.total).toBe(3);
    expect(body.items[0]).toEqual({
      name: 'run_fea_stress',
      version: '1.0.0',
      score: expect.any(Number),
      status: 'REGISTERED',
      domain: 'mechanical',
      agent: 'mechanical',
      description: 'Runs a linear static FEA stress analysis and reports the peak von Mises stress.',
      tags: ['fea', 'stress'],
      matched_fields: ['name', 'tags', 'description'],
      pending_dependencies: [],
      deprecation: null,
      // Seed 004's summary: a TypeScript skill is one tool named like itself, found on disk (system scope).
      tool_count: 1,
      tool_names: ['run_fea_stress'],
      dcc: null,
      layer: null,
      scope: 'system',
      implicit_invocation: true,
      runtime: null,
    });
    const scores = body.items.map((item: { score: number }) => item.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
  });

  it('matches tool ids and snake_case parts', async () => {
    expect(await names('q=calculix')).toEqual(['run_fea_stress']);
    expect(await names('q=pinmap')).toEqual(['validate_pinmap']);
  });

  it('puts an exact name match first even when other skills score higher', async () => {
    const { body } = await search('q=THERMAL');
    expect(body.items.map((item: { name: string }) => item.name)).toEqual(['thermal', 'thermal_derating']);
    expect(body.items[0].score).toBeLessThan(body.items[1].score);
  });

  it('applies domain, agent, tag, phase and status filters, and limit with total', async () => {
    expect(await names('q=stress&domain=mechanical&tag=fea')).toEqual(['run_fea_stress']);
    expect(await names('q=stress&tag=stress&tag=margin')).toEqual(['stress_margin_check', 'legacy_margin_check']);
    expect(await names('q=limits&agent=embedded')).toEqual(['validate_pinmap']);
    expect(await names('q=stress&phase=1')).toEqual(['stress_margin_check', 'legacy_margin_check']);
    expect(await names('q=stress&domain=thermal')).toEqual([]);
    const limited = await search('q=stress&limit=1');
    expect(limited.body.items).toHaveLength(1);
    expect(limited.body.total).toBe(3);
  });

  it('pages the ranking by cursor: the pages, put together, are the ranking in one page', async () => {
    const whole = await call(registry.baseUrl, 'GET', '/v1/search?q=stress%20margin%20thermal&limit=100');
    expect(whole.body.next_cursor).toBeNull();
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page: { status: number; body: any } = await call(
        registry.baseUrl,
        'GET',
        `/v1/search?q=stress%20margin%20thermal&limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.total).toBe(whole.body.total);
      paged.push(...page.body.items.map((item: { name: string }) => item.name));
      cursor = page.body.next_cursor;
    } while (cursor);
    expect(paged).toEqual(whole.body.items.map((item: { name: string }) => item.name));
    expect(paged.length).toBeGreaterThan(2);
    // A list cursor is not a search cursor, and neither is a made-up one.
    const listCursor = (await call(registry.baseUrl, 'GET', '/v1/skills?limit=1')).body.next_cursor;
    for (const bad of [listCursor, 'bm90LWEtY3Vyc29y']) {
      expect((await call(registry.baseUrl, 'GET', `/v1/search?q=stress&cursor=${bad}`)).body.code).toBe('INVALID_CURSOR');
    }
  });

  it('counts facets over the skills the same view shows (the search with q, the list without)', async () => {
    const facets = async (query: string) => (await call(registry.baseUrl, 'GET', `/v1/facets${query}`)).body;
    const listed = (await call(registry.baseUrl, 'GET', '/v1/skills?limit=100')).body.items;
    const all = await facets('');
    expect(all.total).toBe(listed.length);
    const domains = new Map<string, number>();
    for (const item of listed) domains.set(item.domain, (domains.get(item.domain) ?? 0) + 1);
    expect(all.facets.domain).toEqual(
      [...domains].map(([value, count]) => ({ value, count })).sort((a, b) => b.count - a.count || a.value.localeCompare(b.value)),
    );
    expect(all.facets.format).toEqual([{ value: 'typescript', count: listed.length }]);
    // run_fea_stress needs calculix.run_fea, which no adapter offers here.
    expect(all.facets.tools).toEqual([
      { value: 'none required', count: listed.length - 1 },
      { value: 'some unavailable', count: 1 },
    ]);
    const searched = await call(registry.baseUrl, 'GET', '/v1/search?q=stress&limit=100');
    const stress = await facets('?q=stress');
    expect(stress.total).toBe(searched.body.total);
    expect(stress.facets.tag.find((facet: { value: string }) => facet.value === 'stress').count).toBe(
      searched.body.items.filter((item: { tags: string[] }) => item.tags.includes('stress')).length,
    );
    const narrowed = await facets('?q=stress&tag=fea');
    expect(narrowed).toMatchObject({
      total: 1,
      facets: { domain: [{ value: 'mechanical', count: 1 }], phase: [{ value: '2', count: 1 }] },
    });
    expect((await call(registry.baseUrl, 'GET', '/v1/facets?q=%20')).body.code).toBe('VALIDATION_FAILED');
  });

  it('leaves DRAFT skills out unless the status filter asks for them', async () => {
    expect(await names('q=probe')).toEqual([]);
    expect(await names('q=probe&status=DRAFT')).toEqual(['draft_stress_probe']);
  });

  it.each([
    ['', 'q'],
    ['q=', 'q'],
    ['q=%20%20', 'q'],
    [`q=${'x'.repeat(201)}`, 'q'],
    ['q=stress&limit=0', 'limit'],
    ['q=stress&limit=101', 'limit'],
    ['q=stress&limit=ten', 'limit'],
    ['q=stress&status=RETIRED', 'status'],
    ['q=stress&phase=4', 'phase'],
    ['q=stress&q=fea', 'q'],
    ['q=stress&sort=name', 'sort'],
  ])('answers %j with 400 problem details naming %s', async (query, field) => {
    const { status, headers, body } = await search(query);
    expect(status).toBe(400);
    expect(headers.get('content-type')).toContain('application/problem+json');
    expect(body.code).toBe('VALIDATION_FAILED');
    expect(body.errors.map((error: { field: string }) => error.field)).toContain(field);
  });

  it('moves a skill below an ACTIVE one of equal relevance as soon as it is deprecated', async () => {
    for (const name of ['stress_margin_check', 'legacy_margin_check']) {
      const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, forcedPromotion);
      expect(promoted.status).toBe(200);
    }
    const before = (await search('q=material%20allowables')).body.items;
    // Equal relevance and both ACTIVE: the name decides.
    expect(before.map((item: { name: string; status: string }) => [item.name, item.status])).toEqual([
      ['legacy_margin_check', 'ACTIVE'],
      ['stress_margin_check', 'ACTIVE'],
    ]);
    expect(before[0].score).toBe(before[1].score);

    const deprecated = await call(registry.baseUrl, 'POST', '/v1/admin/skills/legacy_margin_check/deprecate', {
      ...admin,
      body: { reason: 'replaced', successor: 'stress_margin_check' },
    });
    expect(deprecated.status).toBe(200);

    const after = (await search('q=material%20allowables')).body.items;
    expect(after.map((item: { name: string; status: string }) => [item.name, item.status])).toEqual([
      ['stress_margin_check', 'ACTIVE'],
      ['legacy_margin_check', 'DEPRECATED'],
    ]);
    expect(after[1].score / after[0].score).toBeCloseTo(0.8, 3);
    expect(after[1].deprecation).toMatchObject({ reason: 'replaced', successor: 'stress_margin_check' });
    expect(await names('q=stress&status=DEPRECATED')).toEqual(['legacy_margin_check']);
  });

  it('on another replica, follows a change made through the first one', async () => {
    const replica = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
    try {
      const onReplica = async () =>
        (await call(replica.baseUrl, 'GET', '/v1/search?q=pinmap&status=ACTIVE')).body.items.map((item: { name: string }) => item.name);
      expect(await onReplica()).toEqual([]);
      const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/validate_pinmap/versions/1.0.0/promote', forcedPromotion);
      expect(promoted.status).toBe(200);
      // The replica hears of the change through Postgres NOTIFY, a few milliseconds later.
      const deadline = Date.now() + 5000;
      while ((await onReplica()).length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 25));
      expect(await onReplica()).toEqual(['validate_pinmap']);
    } finally {
      await replica.stop();
    }
  });

  it('follows packages added on disk after a rediscovery', async () => {
    await writeEchoSkill(root, {
      name: 'bolt_preload',
      domain: 'mechanical',
      definition: { description: 'Computes bolt preload and joint stress.', tags: ['bolt'] },
    });
    expect(await names('q=bolt')).toEqual([]);
    const report = await call(registry.baseUrl, 'POST', '/v1/admin/discover', admin);
    expect(report.status).toBe(200);
    expect(await names('q=bolt')).toEqual(['bolt_preload']);
  });
});
