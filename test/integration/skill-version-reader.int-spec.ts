import pg from 'pg';
import { SkillVersionReader, pgRows, readSkillVersionRow } from '#skill-versions/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';

/** libs/skill-versions is the one reader of skill_versions: every column the migrations give the table is read there. */
describe('the one reader of skill_versions', () => {
  let db: TestDatabase;
  let pool: pg.Pool;

  beforeAll(async () => {
    db = await createTestDatabase('skill_version_reader');
    pool = new pg.Pool({ connectionString: db.url, max: 2 });
  });
  afterAll(async () => {
    await pool?.end();
    await db?.drop();
  });

  it('maps every column of the table (a new column fails here until the reader reads it)', async () => {
    const columns = (
      await pool.query(
        `SELECT column_name FROM information_schema.columns WHERE table_name = 'skill_versions' AND table_schema = current_schema()`,
      )
    ).rows.map((row) => row.column_name as string);
    expect(columns.length).toBeGreaterThan(30);
    const read = new Set<string>();
    const row = new Proxy({} as Record<string, unknown>, {
      get: (_target, key) => {
        read.add(String(key));
        return key === 'status_changed_at' || key === 'created_at' || key === 'updated_at' ? '2026-12-03T00:00:00Z' : null;
      },
    });
    readSkillVersionRow(row);
    // skill_id is the join key; the skill's name is read as skill_name beside the columns.
    expect(columns.filter((column) => column !== 'skill_id' && !read.has(column))).toEqual([]);
    expect(read.has('skill_name')).toBe(true);
  });

  it('reads a version by name, by id and by skill, the same record each way', async () => {
    await pool.query(`INSERT INTO skills (id, name, updated_at) VALUES (gen_random_uuid(), 'reader_demo', now())`);
    await pool.query(
      `INSERT INTO skill_versions (id, skill_id, version, version_major, version_minor, version_patch, version_prerelease, domain, agent,
         description, phase, tools_required, input_schema_ref, output_schema_ref, timeout_seconds, retries, idempotent, tags, examples,
         read_only, depends_on, compatibility, format, tools, package_path, content_hash, validation, status, status_changed_at, updated_at,
         deprecation_sunset)
       SELECT gen_random_uuid(), id, '1.2.3-rc.1', 1, 2, 3, 'rc.1', 'demo', 'demo_agent', 'A demo.', 1, '[]', 'in', 'out', 30, 2, true,
         ARRAY['a','b'], '[]', false, '[]', 'backward', 'typescript', '[]', '/p', 'sha256:x', '[]', 'REGISTERED', now(), now(),
         '2027-01-01T00:00:00Z'
       FROM skills WHERE name = 'reader_demo'`,
    );
    const reader = new SkillVersionReader(pgRows(pool));
    const found = await reader.find('reader_demo', '1.2.3-rc.1');
    expect(found).toMatchObject({
      name: 'reader_demo',
      versionKey: [1, 2, 3, 'rc.1'],
      tags: ['a', 'b'],
      status: 'REGISTERED',
      idempotent: true,
      inputSchema: null,
      agentSkill: null,
      deprecatedAt: null,
      deprecationSunset: new Date('2027-01-01T00:00:00Z'),
    });
    expect(found?.createdAt).toBeInstanceOf(Date);
    expect(await reader.byId(found?.id as string)).toEqual(found);
    expect(await reader.ofSkill('reader_demo')).toEqual([found]);
    expect(await reader.find('reader_demo', '9.9.9')).toBeNull();
  });
});
