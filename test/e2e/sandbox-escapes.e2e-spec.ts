import { existsSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { activate, EXECUTION_SKILLS_ROOT, obliterateQueue, readSse } from '../support/executions.js';
import { ADMIN_TOKEN, PUBLISHER_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot } from '../support/skill-packages.js';

const PROBE_TEMPLATE = path.join(REPO_ROOT, 'test/fixtures/escape-skills/escape_probe');
/** One published package per probe, so no probe runs in a process another probe used. */
const PROBES = ['env', 'read', 'list', 'spawn', 'worker', 'socket', 'write', 'kill', 'exit', 'allocate', 'heap', 'busy', 'stdout', 'tool'];
const PLATFORM_SECRET = 'platform-secret-value-do-not-leak';

/**
 * A hostile publisher's handler, run by the real executor: each probe tries one way out of the sandbox
 * and must be blocked (the probe reports `blocked`) or end only its own execution with a code. After
 * each, another skill still runs within 5 s and the executor's process is the same one.
 */
describe('handler sandbox: escapes tried by a hostile package', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let executorPid: number;
  const queuePrefix = `test-escape-${process.pid}-${Date.now()}`;
  const packageCache = `/tmp/skill-registry-escape-${process.pid}/packages`;

  const execute = async (probe: string, target?: string) => {
    const { body } = await call(registry.baseUrl, 'POST', `/v1/skills/acme_escape_${probe}/executions?wait=20`, {
      body: { input: target === undefined ? { probe } : { probe, target } },
    });
    return body as {
      id: string;
      status: string;
      output: { outcome: string; detail: string } | null;
      error: { code: string; message: string } | null;
    };
  };

  const blocked = async (probe: string, target?: string) => {
    const result = await execute(probe, target);
    expect(result).toMatchObject({ status: 'SUCCEEDED' });
    expect({ probe, target, ...result.output }).toMatchObject({ probe, target, outcome: 'blocked' });
    return result.output?.detail ?? '';
  };

  afterEach(async () => {
    // Whatever the probe did, the executor (same process) serves another skill at once.
    // Issue 23: within 5 s of the probe (a dead or wedged executor leaves the execution QUEUED when the wait runs out).
    const started = Date.now();
    const { body } = await call(registry.baseUrl, 'POST', '/v1/skills/quick_noop/executions?wait=5', {
      body: { input: { marker: 'after-probe' } },
    });
    expect(body.status).toBe('SUCCEEDED');
    expect(Date.now() - started).toBeLessThan(5000);
    expect(executor.child.pid).toBe(executorPid);
    expect(executor.child.exitCode).toBeNull();
  });

  beforeAll(async () => {
    db = await createTestDatabase('escapes');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [EXECUTION_SKILLS_ROOT], queuePrefix });
    executor = await startExecutor({
      databaseUrl: db.url,
      queuePrefix,
      env: { PLATFORM_SECRET, PACKAGE_CACHE_DIR: packageCache, SANDBOX_MAX_OUTPUT_KB: '1024' },
    });
    executorPid = executor.child.pid as number;
    await activate(registry.baseUrl, ['quick_noop']);
    // As a third-party publisher would: each probe its own package, published with a token scoped to its
    // prefix, then promoted by the admin on the evidence of its benign declared example.
    const work = await tempRoot('escape-packages-');
    try {
      for (const probe of PROBES) {
        const name = `acme_escape_${probe}`;
        const dir = path.join(work, name);
        await cp(PROBE_TEMPLATE, dir, { recursive: true });
        const definition = JSON.parse(await readFile(path.join(dir, 'definition.json'), 'utf8'));
        await writeFile(path.join(dir, 'definition.json'), JSON.stringify({ ...definition, name }));
        await writeFile(
          path.join(dir, 'SKILL.md'),
          (await readFile(path.join(dir, 'SKILL.md'), 'utf8')).replaceAll('escape-probe', name.replaceAll('_', '-')),
        );
        const published = await fetch(`${registry.baseUrl}/v1/packages`, {
          method: 'POST',
          headers: { 'content-type': 'application/gzip', authorization: `Bearer ${PUBLISHER_TOKEN}` },
          body: await packPackageArchive(await readPackageDir(dir)),
        });
        if (published.status !== 201) throw new Error(`publish ${name}: ${published.status} ${await published.text()}`);
        const promoted = await call(registry.baseUrl, 'POST', `/v1/admin/skills/${name}/versions/1.0.0/promote`, {
          token: ADMIN_TOKEN,
          body: { reason: 'its example passes' },
        });
        if (promoted.status !== 200) throw new Error(`promote ${name}: ${JSON.stringify(promoted.body)}`);
      }
    } finally {
      await rm(work, { recursive: true, force: true });
    }
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  it("reports the sandbox in the executor's health: bubblewrap, available", async () => {
    const health = (await (await fetch(`http://127.0.0.1:${executor.port}/healthz`)).json()) as { handler_sandbox: unknown };
    expect(health.handler_sandbox).toMatchObject({ isolation: 'bubblewrap', available: true, reason: null });
  });

  it('sees no platform variable: process.env holds only the short allow-list', async () => {
    const names = (await blocked('env')).split(',');
    expect(names).not.toContain('DATABASE_URL');
    expect(names).not.toContain('PLATFORM_SECRET');
    expect(names.filter((name) => !['PATH', 'HOME', 'TMPDIR', 'LANG', 'PWD'].includes(name))).toEqual([]);
  });

  it.each(['/proc/self/environ', '/proc/1/environ', '/etc/shadow', `${REPO_ROOT}/package.json.nope`, '/root/.bashrc'])(
    'cannot read %s',
    async (file) => {
      const result = await execute('read', file);
      if (result.output?.outcome === 'escaped') {
        // /proc/self/environ may be readable without the permission model: then it must not carry a platform variable.
        expect(result.output.detail).not.toContain(PLATFORM_SECRET);
        expect(result.output.detail).not.toContain('DATABASE_URL');
      } else expect(result.output?.outcome).toBe('blocked');
    },
  );

  it("cannot read another package's files, the package cache or the executor's working directory", async () => {
    await blocked('read', path.join(EXECUTION_SKILLS_ROOT, 'testing/quick_noop/handler.ts'));
    await blocked('list', packageCache);
    await blocked('list', REPO_ROOT);
    await blocked('list', '/work');
  });

  it('cannot start a process or a worker thread', async () => {
    await blocked('spawn');
    await blocked('worker');
  });

  it.each([
    ['Postgres', '5432'],
    ['Redis', '6379'],
  ])('cannot open a socket to %s on the host', async (_name, port) => {
    const detail = await blocked('socket', port);
    expect(detail).toMatch(/ECONNREFUSED|EACCES|ENETUNREACH|restricted/i);
  });

  it('cannot open a socket to the registry', async () => {
    await blocked('socket', new URL(registry.baseUrl).port);
  });

  it('cannot write outside its scratch directory', async () => {
    for (const target of ['/work/escaped.txt', '/tmp/../work/escaped-too.txt', path.join(REPO_ROOT, 'escaped.txt'), '/etc/escaped']) {
      await blocked('write', target);
      expect(existsSync(path.resolve(target))).toBe(false);
    }
  });

  it('what one run leaves in the scratch directory, the next run of the same process does not see', async () => {
    // Two runs of one package in turn: the pool reuses its process, whose scratch directory outlives a run.
    const probe = async (input: { probe: string; target: string }) => {
      const { body } = await call(registry.baseUrl, 'POST', '/v1/skills/acme_escape_write/executions?wait=20', { body: { input } });
      return body as { status: string; output: { outcome: string; detail: string } };
    };
    const written = await probe({ probe: 'write', target: '/scratch/left-by-an-earlier-caller.txt' });
    expect(written).toMatchObject({ status: 'SUCCEEDED', output: { detail: 'wrote /scratch/left-by-an-earlier-caller.txt' } });
    const listed = await probe({ probe: 'list', target: '/scratch' });
    expect(listed).toMatchObject({ status: 'SUCCEEDED', output: { outcome: 'escaped' } });
    // (The tests' marker directory is mounted there too; it is not a run's leftover.)
    expect(listed.output.detail.split(',')).not.toContain('left-by-an-earlier-caller.txt');
  });

  it('killing its own process ends only its execution, with SANDBOX_CRASHED', async () => {
    expect(await execute('kill')).toMatchObject({ status: 'FAILED', error: { code: 'SANDBOX_CRASHED' } });
  });

  it('process.exit ends only its execution, with SANDBOX_CRASHED', async () => {
    expect(await execute('exit')).toMatchObject({ status: 'FAILED', error: { code: 'SANDBOX_CRASHED' } });
  });

  it('cannot allocate 25 GB: the allocation fails inside the sandbox', async () => {
    const detail = await blocked('allocate');
    expect(detail).toMatch(/allocation failed|Cannot allocate|memory|Invalid|range/i);
  });

  it('a heap that grows without bound ends its execution with RESOURCE_EXHAUSTED', async () => {
    expect(await execute('heap')).toMatchObject({ status: 'FAILED', error: { code: 'RESOURCE_EXHAUSTED' } });
  });

  it('a busy loop past the timeout ends its execution with HANDLER_TIMEOUT', async () => {
    expect(await execute('busy')).toMatchObject({ status: 'FAILED', error: { code: 'HANDLER_TIMEOUT' } });
  });

  it('100 MB on stdout ends its execution with RESOURCE_EXHAUSTED', async () => {
    expect(await execute('stdout')).toMatchObject({ status: 'FAILED', error: { code: 'RESOURCE_EXHAUSTED' } });
  });

  it('a call to a tool it does not declare fails PRECONDITION_FAILED naming the tool, recorded as an event', async () => {
    const result = await execute('tool', 'calculix.run_fea');
    expect(result.output).toMatchObject({ outcome: 'blocked' });
    expect(result.output?.detail).toContain('calculix.run_fea');
    const events = await readSse(registry.baseUrl, result.id);
    expect(events.map((event) => event.data)).toContainEqual(
      expect.objectContaining({
        type: 'tool_completed',
        tool_id: 'calculix.run_fea',
        ok: false,
        error: expect.objectContaining({ code: 'PRECONDITION_FAILED' }),
      }),
    );
  });
});
