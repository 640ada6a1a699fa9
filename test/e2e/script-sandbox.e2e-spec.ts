import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot } from '../support/skill-packages.js';

/** Scripts that try to break out of the sandbox; each must fail its own way while the executor keeps serving. */
const ESCAPES: Record<string, { file: string; source: string; timeout?: number }> = {
  network: {
    file: 'network.py',
    source:
      'import json, socket, sys\njson.load(sys.stdin)\nsocket.create_connection(("127.0.0.1", 5432), timeout=2)\nprint(json.dumps({"connected": True}))\n',
  },
  write_outside: {
    file: 'write_outside.py',
    source: 'import json, sys\njson.load(sys.stdin)\nopen("/skill/SKILL.md", "a").write("x")\nprint(json.dumps({"wrote": True}))\n',
  },
  read_environment: {
    file: 'read_environment.py',
    source:
      'import json, os, sys\njson.load(sys.stdin)\nseen = " ".join(os.environ.keys())\n' +
      'for pid in os.listdir("/proc"):\n    if pid.isdigit():\n        try:\n            seen += open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace")\n        except OSError:\n            pass\n' +
      'print(json.dumps({"leaked": "DATABASE_URL" in seen or "REDIS_URL" in seen, "processes": sum(p.isdigit() for p in os.listdir("/proc"))}))\n',
  },
  fork_bomb: { file: 'fork_bomb.sh', source: '#!/usr/bin/env bash\nbomb() { bomb | bomb & }\nbomb\nsleep 30\n', timeout: 3 },
  flood: { file: 'flood.py', source: 'import sys\nchunk = "x" * 1048576\nfor _ in range(100):\n    sys.stdout.write(chunk)\n' },
  forever: { file: 'forever.py', source: 'while True:\n    pass\n', timeout: 2 },
  ok: { file: 'ok.py', source: 'import json, sys\nprint(json.dumps({"echo": json.load(sys.stdin)["text"]}))\n' },
};

describe('script tools cannot get out of the sandbox', () => {
  let db: TestDatabase;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  const queuePrefix = `test-escapes-${process.pid}-${Date.now()}`;

  beforeAll(async () => {
    db = await createTestDatabase('escapes');
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [await tempRoot()], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix, env: { EXECUTOR_CONCURRENCY: '4' } });
    const root = await tempRoot();
    const dir = path.join(root, 'escape-artist');
    await mkdir(path.join(dir, 'scripts'), { recursive: true });
    const tools = Object.entries(ESCAPES).map(
      ([name, escape]) =>
        `  - name: ${name}\n    description: Tries ${name}.\n    source_file: scripts/${escape.file}\n    timeout_seconds: ${escape.timeout ?? 10}\n`,
    );
    await writeFile(path.join(dir, 'tools.yaml'), `tools:\n${tools.join('')}`);
    await writeFile(
      path.join(dir, 'SKILL.md'),
      '---\nname: escape-artist\ndescription: Scripts that try to leave the sandbox (test only).\nmetadata:\n  dcc-mcp:\n    version: "1.0.0"\n    tools: tools.yaml\n---\n',
    );
    for (const escape of Object.values(ESCAPES)) await writeFile(path.join(dir, 'scripts', escape.file), escape.source);
    const published = await fetch(`${registry.baseUrl}/v1/packages`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
      body: await packPackageArchive(await readPackageDir(dir)),
    });
    if (published.status !== 201) throw new Error(`publish failed: ${await published.text()}`);
    await rm(root, { recursive: true, force: true });
    const promoted = await call(registry.baseUrl, 'POST', '/v1/admin/skills/escape_artist/versions/1.0.0/promote', {
      token: ADMIN_TOKEN,
      body: { force: true, reason: 'test-only escapes have no examples' },
    });
    if (promoted.status !== 200) throw new Error(`promotion failed: ${JSON.stringify(promoted.body)}`);
  });

  afterAll(async () => {
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
  });

  const run = (tool: string) =>
    call(registry.baseUrl, 'POST', '/v1/skills/escape_artist/executions?wait=30', { body: { tool, input: { text: 'still here' } } }).then(
      (response) => response.body,
    );

  it('refuses network, writes outside the scratch directory, secrets, other processes, fork bombs, floods and endless loops', async () => {
    const [network, writeOutside, environment, forkBomb, flood, forever] = await Promise.all(
      ['network', 'write_outside', 'read_environment', 'fork_bomb', 'flood', 'forever'].map(run),
    );
    expect(network).toMatchObject({ status: 'FAILED', error: { code: 'HANDLER_ERROR' } });
    expect(network.error.details.stderr_tail).toMatch(/Connection refused|Network is unreachable|OSError/);
    expect(writeOutside).toMatchObject({ status: 'FAILED', error: { code: 'HANDLER_ERROR' } });
    expect(writeOutside.error.details.stderr_tail).toMatch(/Read-only file system|Permission denied/);
    expect(environment).toMatchObject({ status: 'SUCCEEDED', output: { leaked: false } });
    expect(environment.output.processes).toBeLessThanOrEqual(3);
    expect(forkBomb.status).toBe('FAILED');
    expect(['HANDLER_TIMEOUT', 'HANDLER_ERROR']).toContain(forkBomb.error.code);
    expect(flood).toMatchObject({ status: 'FAILED', error: { code: 'HANDLER_ERROR', details: { reason: 'OUTPUT_TOO_LARGE' } } });
    expect(forever).toMatchObject({ status: 'FAILED', error: { code: 'HANDLER_TIMEOUT' } });
    expect(forever.duration_ms).toBeLessThan(20_000); // it loops forever: only its 2 s timeout ends it

    expect(await run('ok')).toMatchObject({ status: 'SUCCEEDED', output: { echo: 'still here' } });
    expect((await fetch(`http://127.0.0.1:${executor.port}/readyz`)).status).toBe(200);
  });
});
