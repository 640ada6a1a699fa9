import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { readdir } from 'node:fs/promises';
import net from 'node:net';
import { ScriptSandbox, type ScriptRunRequest } from './index.js';
import { errorOf, outputOf, processesWith, removePackage, uniqueMarker, writePackage } from './script-package.test-support.js';

// Escapes a script tool may try: each must fail inside the sandbox, and the sandbox must serve a normal
// run afterwards. The secret is in this process's environment, as DATABASE_URL is in the executor's.
const SECRET = `postgres://executor:${uniqueMarker('s3cret')}@127.0.0.1:5432/registry`;
const bombMarker = uniqueMarker('bomb');

const SCRIPTS: Record<string, string> = {
  'ok.py': 'import json, sys\nprint(json.dumps({"ok": json.load(sys.stdin)}))\n',
  'connect-tcp.py':
    'import json, socket, sys\nhost, port = json.load(sys.stdin)\nsocket.create_connection((host, port), timeout=2)\nprint("{}")\n',
  'connect-unix.py': 'import json, socket, sys\ns = socket.socket(socket.AF_UNIX)\ns.connect(json.load(sys.stdin))\nprint("{}")\n',
  'resolve.py': 'import socket\nsocket.getaddrinfo("registry.npmjs.org", 443)\nprint("{}")\n',
  'write.py': 'import json, sys\nopen(json.load(sys.stdin), "w").write("escaped")\nprint("{}")\n',
  'write-scratch.py':
    'import json, os\nfor p in ["/scratch/a", "/tmp/b", "c"]:\n    open(p, "w").write("x")\nprint(json.dumps({"files": sorted(os.listdir("."))}))\n',
  'environ.py': [
    'import json, os',
    'def read(path):',
    '    try:',
    '        return open(path, "rb").read().replace(b"\\0", b"\\n").decode("utf8", "replace")',
    '    except OSError as error:',
    '        return "error: " + error.strerror',
    'print(json.dumps({"environ": dict(os.environ), "pid": os.getpid(), "ppid": os.getppid(),',
    '                  "proc1": read("/proc/1/environ"), "parent": read(f"/proc/{os.getppid()}/environ"),',
    '                  "self": read("/proc/self/environ")}))',
  ].join('\n'),
  'processes.py': [
    'import json, os',
    'pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())',
    'cmdlines = {p: open(f"/proc/{p}/cmdline", "rb").read().replace(b"\\0", b" ").decode() for p in pids}',
    'fds = {fd: os.readlink(f"/proc/self/fd/{fd}") for fd in os.listdir("/proc/self/fd") if os.path.exists(f"/proc/self/fd/{fd}")}',
    'print(json.dumps({"cmdlines": cmdlines, "uid": os.getuid(), "fds": fds,',
    '                  "visible": {p: os.path.exists(p) for p in ["/root", "/home", "/work", "/var", "/run", "/etc/passwd", "/etc/shadow"]}}))',
  ].join('\n'),
  [`${bombMarker}.py`]: 'import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n',
  'count-forks.py': [
    'import json, os, time',
    'children = 0',
    'try:',
    '    while children < 1000:',
    '        if os.fork() == 0:',
    '            time.sleep(2)',
    '            os._exit(0)',
    '        children += 1',
    'except OSError as error:',
    '    print(json.dumps({"children": children, "error": error.strerror}))',
  ].join('\n'),
  'allocate.py': 'import json, sys\nx = bytearray(json.load(sys.stdin) * 1024 * 1024)\nprint(json.dumps({"allocated": len(x)}))\n',
  'allocate.mjs': 'const a = Buffer.alloc(256 * 1024 * 1024, 1);\nconsole.log(JSON.stringify({ allocated: a.length }));\n',
};

describe('ScriptSandbox escapes under bubblewrap', () => {
  let packageDir: string;
  const sandbox = new ScriptSandbox({ isolation: 'bubblewrap' });
  const run = (script: string, input: unknown = {}, extra: Partial<ScriptRunRequest> = {}) =>
    sandbox.run({ packageDir, script, input, timeoutMs: 5000, ...extra });
  const expectStillServing = async () => expect(outputOf(await run('ok.py', 7))).toEqual({ ok: 7 });

  beforeAll(async () => {
    process.env.DATABASE_URL = SECRET;
    packageDir = await writePackage(SCRIPTS);
    await sandbox.ready();
  });
  afterAll(async () => {
    delete process.env.DATABASE_URL;
    await removePackage(packageDir);
  });

  it('cannot reach Postgres on the host loopback, which this process can', async () => {
    await new Promise<void>((resolve, reject) => net.connect(5432, '127.0.0.1', resolve).on('error', reject).unref());
    const error = errorOf(await run('connect-tcp.py', ['127.0.0.1', 5432]));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.details.stderr_tail).toContain('Connection refused');
    await expectStillServing();
  });

  it('has no route to the internet and no name resolution', async () => {
    expect(errorOf(await run('connect-tcp.py', ['1.1.1.1', 53])).details.stderr_tail).toContain('Network is unreachable');
    expect(errorOf(await run('resolve.py')).details.stderr_tail).toMatch(/gaierror|Temporary failure in name resolution|not known/);
    await expectStillServing();
  });

  it("cannot reach the host's unix sockets (Postgres in /var/run/postgresql)", async () => {
    const error = errorOf(await run('connect-unix.py', '/var/run/postgresql/.s.PGSQL.5432'));
    expect(error.details.stderr_tail).toContain('No such file or directory');
    await expectStillServing();
  });

  it.each([
    ['the package', '/skill/ok.py', 'Read-only file system'],
    ['/etc', '/etc/escaped', 'Read-only file system'],
    ['/usr', '/usr/bin/escaped', 'Read-only file system'],
    ['the root', '/escaped', 'Read-only file system'],
    ['/dev/shm', '/dev/shm/escaped', 'Read-only file system'],
    ['/work', '/work/main/escaped', 'No such file or directory'],
    ['/root', '/root/escaped', 'No such file or directory'],
  ])('cannot write to %s', async (_where, target, reason) => {
    const error = errorOf(await run('write.py', target));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.details.stderr_tail).toContain(reason);
    await expectStillServing();
  });

  it('writes only to its scratch directory (also reachable as /tmp)', async () => {
    expect(outputOf(await run('write-scratch.py'))).toEqual({ files: ['a', 'b', 'c'] });
    expect(await readdir(packageDir)).toEqual(expect.not.arrayContaining(['a', 'b', 'c']));
  });

  it("cannot read the executor's environment, neither from os.environ nor from /proc", async () => {
    const output = outputOf(await run('environ.py', {}, { env: { SKILL_NAME: 'escapes' } }));
    expect(JSON.stringify(output)).not.toContain(SECRET);
    expect(JSON.stringify(output)).not.toContain('DATABASE_URL');
    expect(Object.keys(output.environ as object).sort()).toEqual(['HOME', 'LANG', 'PATH', 'PWD', 'SKILL_NAME', 'TMPDIR']);
    // Its parent is bwrap's reaper, PID 1 of its own namespace, started with an empty environment.
    expect(output).toMatchObject({ ppid: 1, proc1: '', parent: '' });
    await expectStillServing();
  });

  it('sees only its own processes, runs unprivileged, inherits no descriptors and does not see the host tree', async () => {
    const output = outputOf(await run('processes.py'));
    const cmdlines = Object.values(output.cmdlines as Record<string, string>);
    expect(cmdlines).toHaveLength(2); // bwrap's reaper and the script
    expect(cmdlines.join('\n')).not.toMatch(/jest|postgres|redis/);
    expect(output.uid).not.toBe(0);
    expect(Object.keys(output.fds as object).sort()).toEqual(['0', '1', '2']);
    expect(output.visible).toEqual({
      '/root': false,
      '/home': false,
      '/work': false,
      '/var': false,
      '/run': false,
      '/etc/passwd': false,
      '/etc/shadow': false,
    });
    await expectStillServing();
  });

  it('stops forking at the process limit', async () => {
    const output = outputOf(await run('count-forks.py', {}, { limits: { maxProcesses: 16 } }));
    expect(output).toEqual({ children: 15, error: 'Resource temporarily unavailable' });
    await expectStillServing();
  });

  it('contains a fork bomb: bounded by the process limit, ended by the timeout, nothing survives', async () => {
    const outcome = await run(`${bombMarker}.py`, {}, { timeoutMs: 3000 });
    expect(errorOf(outcome).code).toBe('HANDLER_TIMEOUT');
    expect(outcome.durationMs).toBeLessThan(15_000); // nothing but the 3 s timeout ends it
    expect(await processesWith(bombMarker)).toEqual([]);
    await expectStillServing();
  });

  it('cannot allocate past the memory limit (python and node)', async () => {
    const python = errorOf(await run('allocate.py', 256, { limits: { maxMemoryMb: 128 } }));
    expect(python.details.stderr_tail).toContain('MemoryError');
    const node = errorOf(await run('allocate.mjs', {}, { limits: { maxMemoryMb: 128 } }));
    expect(node.details.stderr_tail).toMatch(/Array buffer allocation failed|RangeError/);
    expect(outputOf(await run('allocate.py', 32, { limits: { maxMemoryMb: 128 } }))).toEqual({ allocated: 32 * 1024 * 1024 });
  });
});
