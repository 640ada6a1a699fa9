import { rm } from 'node:fs/promises';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot } from '../support/skill-packages.js';
import { obliterateQueue } from '../support/executions.js';

const DRAFT_07 = 'http://json-schema.org/draft-07/schema#';

/**
 * POST /v1/compatibility reads each schema in the dialect its $schema names (issue 24 §3): on
 * Confluent's draft-07 diff examples it answered "compatible" for a moved `dependencies` entry and 422
 * for `items` lists, `additionalItems` and `definitions`.
 */
describe('POST /v1/compatibility: draft-07 schemas', () => {
  const queuePrefix = `test-compat-dialects-${process.pid}-${Date.now()}`;
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const check = (body: object) => call(registry.baseUrl, 'POST', '/v1/compatibility', { body });

  beforeAll(async () => {
    db = await createTestDatabase('compatibility_dialects');
    root = await tempRoot();
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], queuePrefix });
  });

  afterAll(async () => {
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  it('answers incompatible when a dependency moves from foo to bar, with or without $schema', async () => {
    for (const $schema of [DRAFT_07, undefined]) {
      const checked = await check({
        old: { $schema, dependencies: { foo: { required: ['bar'] } } },
        new: { $schema, dependencies: { bar: { required: ['foo'] } } },
        direction: 'backward',
      });
      expect(checked).toMatchObject({ status: 200, body: { compatible: false } });
      expect(checked.body.changes).toContainEqual(
        expect.objectContaining({ code: 'DEPENDENT_SCHEMA_ADDED', breaking: true, new_pointer: '/dependencies/bar' }),
      );
    }
  });

  it('reads a draft-07 tuple (items list, additionalItems, definitions) instead of refusing it', async () => {
    const tuple = (additionalItems: boolean) => ({
      $schema: DRAFT_07,
      type: 'array',
      items: [{ $ref: '#/definitions/name' }, { type: 'number' }],
      additionalItems,
      definitions: { name: { type: 'string' } },
    });
    const closed = await check({ old: tuple(true), new: tuple(false) });
    expect(closed).toMatchObject({ status: 200, body: { compatible: false } });
    expect(closed.body.changes).toContainEqual(expect.objectContaining({ code: 'ITEMS_CLOSED', new_pointer: '/additionalItems' }));
    expect(await check({ old: tuple(false), new: tuple(true) })).toMatchObject({ status: 200, body: { compatible: true } });
  });

  it('refuses a $schema it does not read with 422 SCHEMA_INVALID naming it', async () => {
    const refused = await check({ old: { $schema: 'http://json-schema.org/draft-04/schema#' }, new: {} });
    expect(refused).toMatchObject({ status: 422, body: { code: 'SCHEMA_INVALID', schema: 'old' } });
    expect(refused.body.problems[0]).toContain('names no dialect this checker reads');
  });
});
