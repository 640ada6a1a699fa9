import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { call, PUBLISHER_TOKEN, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

const SECRET = `inspection-secret-${process.pid}-${Date.now()}`;

/** schema.ts of the echo skill, with `probe` run first, at import: what a hostile publisher's package does at registration. */
const schemaWith = (probe: string) => `import { z } from '@skill-registry/sdk';
${probe}
export const EchoInput = z.object({ text: z.string().min(1).describe('Text to echo back') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`;

/** A probe that reports what it saw by failing to load with it as the message (the report carries the message). */
const report = (expression: string) => `throw new Error('PROBE ' + JSON.stringify(${expression}));`;
const tryRead = `(file: string) => { try { return require('node:fs').readFileSync(file, 'utf8').slice(0, 2000); } catch (e: any) { return 'blocked: ' + e.code; } }`;

/**
 * Package code never runs in the registry: a package's schema.ts and handler.ts are evaluated at registration
 * (to derive its JSON Schemas and check its handler) in a sandbox process, and whatever that code does stays there.
 * Each probe is published (dry run) by a publisher scoped to acme_*, as a third party would.
 */
describe('package code at registration runs sandboxed (registry in process)', () => {
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  let listener: net.Server;
  let connections = 0;
  const hostMarker = path.join(os.tmpdir(), `inspection-escape-${process.pid}-${Date.now()}`);

  beforeAll(async () => {
    process.env.SKILL_REGISTRY_TEST_SECRET = SECRET;
    db = await createTestDatabase('package_inspection');
    root = await tempRoot();
    listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [root], env: { PACKAGE_INSPECTION_TIMEOUT_MS: '3000' } });
  }, 60_000);

  afterAll(async () => {
    delete process.env.SKILL_REGISTRY_TEST_SECRET;
    await registry?.stop();
    await new Promise((resolve) => listener?.close(resolve));
    await db?.drop();
    await rm(root, { recursive: true, force: true });
    await rm(hostMarker, { force: true });
  });

  /** Publishes (dry run) a package whose schema.ts starts with `probe`; the answer and how long it took. */
  async function publishProbe(name: string, probe: string): Promise<{ status: number; body: any; ms: number }> {
    const staging = await mkdtemp(path.join(os.tmpdir(), 'probe-'));
    try {
      const dir = await writeEchoSkill(staging, { name, schemaSource: schemaWith(probe) });
      const archive = await packPackageArchive(await readPackageDir(dir));
      const started = performance.now();
      const response = await fetch(`${registry.baseUrl}/v1/packages?dry_run=true`, {
        method: 'POST',
        headers: { authorization: `Bearer ${PUBLISHER_TOKEN}`, 'content-type': 'application/gzip' },
        body: archive,
      });
      return { status: response.status, body: await response.json(), ms: performance.now() - started };
    } finally {
      await rm(staging, { recursive: true, force: true });
    }
  }
  const findings = (body: { report?: { message: string }[] }) => (body.report ?? []).map((issue) => issue.message).join('\n');

  it('a benign package is checked as before: its JSON Schemas derived in the sandbox', async () => {
    const answer = await publishProbe('acme_benign', '');
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'valid', name: 'acme_benign' } });
  });

  it("sees no platform variable, no registry environment and none of the host's files", async () => {
    const probe = report(
      `{ env: process.env, self: (${tryRead})('/proc/self/environ'), init: (${tryRead})('/proc/1/environ'),
         parent: (${tryRead})('/proc/' + process.ppid + '/environ'), shadow: (${tryRead})('/etc/shadow'),
         cwd: (() => { try { return require('node:fs').readdirSync(${JSON.stringify(process.cwd())}); } catch (e: any) { return 'blocked: ' + e.code; } })(),
         uid: process.getuid?.() }`,
    );
    const answer = await publishProbe('acme_env_probe', probe);
    expect(answer.status).toBe(422);
    const seen = findings(answer.body);
    expect(seen).toContain('PROBE');
    expect(seen).not.toContain(SECRET);
    expect(seen).not.toMatch(/DATABASE_URL|ADMIN_TOKENS|PUBLISHER_TOKENS|postgres(ql)?:\/\//);
    expect(seen).toMatch(/"shadow":"blocked: [A-Z_]+"/);
    expect(seen).toMatch(/"cwd":"blocked: [A-Z_]+"/);
    expect(seen).toMatch(/"uid":65534/);
    // Positions are the package's own (the sandbox maps the precompiled code back through its source map).
    expect(seen).toMatch(/\(at schema\.ts:2:\d+\)/);
    expect(seen).toMatch(
      /"env":\{"PATH":"\/usr\/bin:\/bin","HOME":"\/scratch","TMPDIR":"\/scratch","LANG":"C.UTF-8"(,"PWD":"\/scratch")?\}/,
    );
  });

  it('writes nothing outside its scratch directory, starts no process and opens no socket', async () => {
    const probe = `
      try { require('node:fs').writeFileSync(${JSON.stringify(hostMarker)}, 'escaped'); } catch {}
      try { require('node:child_process').execSync('touch ${hostMarker}-exec'); } catch {}
      try { const s = require('node:net').connect(${(listener.address() as net.AddressInfo).port}, '127.0.0.1'); s.on('error', () => {}); } catch {}
      try { const s = require('node:net').connect(5432, '127.0.0.1'); s.on('error', () => {}); } catch {}
    `;
    const answer = await publishProbe('acme_write_probe', probe);
    expect(answer).toMatchObject({ status: 200, body: { outcome: 'valid' } });
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(existsSync(hostMarker)).toBe(false);
    expect(existsSync(`${hostMarker}-exec`)).toBe(false);
    expect(connections).toBe(0);
  });

  it.each([
    ['kills its own process', 'acme_kill_probe', 'process.kill(process.pid, "SIGKILL");'],
    ['exits', 'acme_exit_probe', 'process.exit(0);'],
    ['never finishes loading', 'acme_loop_probe', 'for (;;) {}'],
    ['exhausts its memory', 'acme_memory_probe', 'const hoard: unknown[] = []; for (;;) hoard.push(new Array(1e6).fill(1));'],
    ['forges a protocol frame', 'acme_forge_probe', 'require("node:fs").writeSync(3, Buffer.from([0, 0, 0, 5, 123, 125, 125, 125, 125]));'],
  ])(
    'is refused with an error finding when its code %s, and the registry keeps serving',
    async (_what, name, probe) => {
      const slow = publishProbe(name, probe);
      // The registry answers while the package's code misbehaves in its sandbox.
      const health = await call(registry.baseUrl, 'GET', '/healthz');
      expect(health.status).toBe(200);
      const answer = await slow;
      expect(answer.status).toBe(422);
      expect(answer.body).toMatchObject({ code: 'PACKAGE_INVALID' });
      expect(findings(answer.body)).toMatch(/could not be inspected|failed to load/);
      expect(answer.ms).toBeLessThan(30_000);
      // And the next package is checked as usual.
      expect((await publishProbe('acme_after', '')).body).toMatchObject({ outcome: 'valid' });
    },
    60_000,
  );

  it('a package on disk whose code misbehaves is a DRAFT with the finding; the others register', async () => {
    await writeEchoSkill(root, { name: 'disk_good' });
    await writeEchoSkill(root, { name: 'disk_loop', schemaSource: schemaWith('for (;;) {}') });
    await writeEchoSkill(root, { name: 'disk_also_good', domain: 'other' });
    const discovered = await call(registry.baseUrl, 'POST', '/v1/admin/discover', { token: 'test-admin-token-0001' });
    expect(discovered.status).toBe(200);
    const status = async (name: string) => (await call(registry.baseUrl, 'GET', `/v1/skills/${name}/versions/1.0.0`)).body;
    expect((await status('disk_good')).status).toBe('REGISTERED');
    expect((await status('disk_also_good')).status).toBe('REGISTERED');
    const loop = await status('disk_loop');
    expect(loop.status).toBe('DRAFT');
    expect(loop.validation.map((issue: { message: string }) => issue.message).join('\n')).toContain('could not be inspected');
  }, 60_000);
});
