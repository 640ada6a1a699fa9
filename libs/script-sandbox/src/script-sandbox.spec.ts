import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { chmod, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { isolationFromEnvironment, OUTPUT_TOO_LARGE, ScriptSandboxUnavailable, ScriptSandbox } from './index.js';
import { errorOf, outputOf, processesWith, removePackage, uniqueMarker, writePackage } from './script-package.test-support.js';

const markerSleep = uniqueMarker('4242.');
const cancelMarker = uniqueMarker('4343.');
const noneMarker = uniqueMarker('4444.');
const ignoreMarker = uniqueMarker('4545.');

const SCRIPTS: Record<string, string> = {
  'scripts/echo.py': [
    'import json, os, sys',
    'data = json.load(sys.stdin)',
    'print(json.dumps({"echo": data, "cwd": os.getcwd(), "home": os.environ["HOME"], "tmpdir": os.environ["TMPDIR"],',
    '                  "skill": os.environ.get("SKILL_NAME"), "argv0": sys.argv[0]}))',
  ].join('\n'),
  'scripts/echo.sh': 'input=$(cat)\nprintf \'{"echo":%s,"shell":"bash","pwd":"%s"}\\n\' "$input" "$PWD"\n',
  'scripts/echo.mjs': [
    "let text = '';",
    'for await (const chunk of process.stdin) text += chunk;',
    'console.log(JSON.stringify({ echo: JSON.parse(text), node: process.version }));',
  ].join('\n'),
  'scripts/fail.py': 'import sys\nsys.stderr.write("boom: the input was bad\\n")\nsys.exit(3)\n',
  'scripts/not-json.py': 'print("hello, not json")\n',
  'scripts/array.py': 'print("[1, 2, 3]")\n',
  'scripts/chatty.py': 'import sys\nsys.stderr.write("x" * 200_000 + "END")\nprint("{}")\n',
  'scripts/leave-file.py':
    'import os, json\nbefore = os.listdir(".")\nopen("left-behind", "w").write("1")\nprint(json.dumps({"before": before}))\n',
  'scripts/flood.py': 'import sys\nchunk = "x" * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(chunk)\n',
  'scripts/forever.py': `import subprocess\nsubprocess.Popen(["/bin/sleep", "${markerSleep}"])\nwhile True:\n    pass\n`,
  // Each installs its SIGTERM disposition before it starts its marker process, so a test that cancels once the
  // marker is seen knows the script is ready for the signal (no guess at how long python takes to start).
  'scripts/wait-for-term.py': [
    'import signal, subprocess, sys, time',
    'def on_term(*_):',
    '    sys.stderr.write("got SIGTERM, cleaning up\\n")',
    '    sys.exit(143)',
    'signal.signal(signal.SIGTERM, on_term)',
    `subprocess.Popen(["/bin/sleep", "${cancelMarker}"])`,
    'time.sleep(60)',
  ].join('\n'),
  'scripts/ignore-term.py': [
    'import signal, subprocess, time',
    'signal.signal(signal.SIGTERM, signal.SIG_IGN)',
    `subprocess.Popen(["/bin/sleep", "${ignoreMarker}"])`,
    'time.sleep(60)',
  ].join('\n'),
  'scripts/background.sh': `/bin/sleep ${noneMarker} &\nwhile :; do :; done\n`,
  'scripts/notes.txt': 'not a script',
};

describe('ScriptSandbox with bubblewrap', () => {
  let packageDir: string;
  let scratchRoot: string;
  let sandbox: ScriptSandbox;

  beforeAll(async () => {
    packageDir = await writePackage(SCRIPTS);
    scratchRoot = await mkdtemp(path.join(tmpdir(), 'script-scratch-'));
    await chmod(scratchRoot, 0o755);
    sandbox = new ScriptSandbox({ isolation: 'bubblewrap', scratchRoot });
    await sandbox.ready();
  });
  afterAll(async () => {
    await removePackage(packageDir);
    await rm(scratchRoot, { recursive: true, force: true });
  });

  const run = (script: string, extra: Partial<Parameters<ScriptSandbox['run']>[0]> = {}) =>
    sandbox.run({ packageDir, script, input: { n: 1, text: 'héllo' }, timeoutMs: 10_000, ...extra });

  it('runs a python script: JSON in on stdin, JSON out on stdout, in /scratch, the package at /skill', async () => {
    const outcome = await run('scripts/echo.py', { env: { SKILL_NAME: 'echo-skill' } });
    expect(outputOf(outcome)).toEqual({
      echo: { n: 1, text: 'héllo' },
      cwd: '/scratch',
      home: '/scratch',
      tmpdir: '/scratch',
      skill: 'echo-skill',
      argv0: '/skill/scripts/echo.py',
    });
  });

  it('runs several scripts at once, each with its own input and scratch directory', async () => {
    const outcomes = await Promise.all([1, 2, 3, 4].map((n) => run('scripts/echo.py', { input: { n } })));
    expect(outcomes.map((outcome) => (outputOf(outcome).echo as { n: number }).n)).toEqual([1, 2, 3, 4]);
  });

  it('runs a bash script', async () => {
    expect(outputOf(await run('scripts/echo.sh'))).toEqual({ echo: { n: 1, text: 'héllo' }, shell: 'bash', pwd: '/scratch' });
  });

  it('runs a node .mjs script', async () => {
    expect(outputOf(await run('scripts/echo.mjs'))).toMatchObject({ echo: { n: 1, text: 'héllo' }, node: expect.stringMatching(/^v\d+/) });
  });

  it('reports a non-zero exit as HANDLER_ERROR with the exit code and the tail of stderr', async () => {
    const error = errorOf(await run('scripts/fail.py'));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.details).toMatchObject({ exit_code: 3 });
    expect(error.details.stderr_tail).toContain('boom: the input was bad');
  });

  it('reports stdout that is not JSON as HANDLER_ERROR', async () => {
    const error = errorOf(await run('scripts/not-json.py'));
    expect(error).toMatchObject({ code: 'HANDLER_ERROR', details: { exit_code: 0, stdout_head: 'hello, not json' } });
    expect(error.message).toMatch(/must print one JSON object.*not valid JSON/);
  });

  it('reports JSON that is not an object as HANDLER_ERROR', async () => {
    const error = errorOf(await run('scripts/array.py'));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toMatch(/JSON object.*an array/);
  });

  it('keeps only the tail of stderr', async () => {
    const outcome = await run('scripts/chatty.py', { limits: { maxStderrBytes: 1024 } });
    expect(outcome.ok).toBe(true);
    if (!outcome.ok) return;
    expect(outcome.stderrTail.length).toBe(1024);
    expect(outcome.stderrTail.endsWith('xEND')).toBe(true);
  });

  it('gives every run a fresh scratch directory and removes it afterwards', async () => {
    expect(outputOf(await run('scripts/leave-file.py'))).toEqual({ before: [] });
    expect(outputOf(await run('scripts/leave-file.py'))).toEqual({ before: [] });
    expect(await readdir(scratchRoot)).toEqual([]);
  });

  it('refuses scripts without a known interpreter, outside the package or missing', async () => {
    expect(errorOf(await run('scripts/notes.txt')).message).toMatch(/No interpreter.*\.py/);
    expect(errorOf(await run('../outside.py')).message).toMatch(/inside the package/);
    expect(errorOf(await run('/etc/passwd.py')).message).toMatch(/inside the package/);
    expect(errorOf(await run('scripts/missing.py')).message).toMatch(/not a file of the package/);
  });

  it('kills a script at the stdout bound instead of buffering 100 MB', async () => {
    const outcome = await run('scripts/flood.py');
    const error = errorOf(outcome);
    expect(error).toMatchObject({ code: 'HANDLER_ERROR', details: { reason: OUTPUT_TOO_LARGE, limit_bytes: 1024 * 1024 } });
    expect(outcome.durationMs).toBeLessThan(8000);
    expect(outputOf(await run('scripts/echo.py'))).toHaveProperty('echo');
  });

  it('kills a script that loops forever at the timeout, with every process it started', async () => {
    const outcome = await run('scripts/forever.py', { timeoutMs: 1500 });
    expect(errorOf(outcome)).toMatchObject({ code: 'HANDLER_TIMEOUT', details: { timeout_ms: 1500 } });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(1500);
    expect(outcome.durationMs).toBeLessThan(8000);
    expect(await processesWith(markerSleep)).toEqual([]);
  });

  /** Aborts as soon as a process carrying the marker runs (the script is then past its signal set-up). */
  const abortOnceRunning = (marker: string): AbortController => {
    const controller = new AbortController();
    const poll = async () => {
      while (!controller.signal.aborted) {
        if ((await processesWith(marker)).length > 0) return controller.abort();
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    };
    void poll();
    return controller;
  };

  // The timings below tell apart outcomes that differ by tens of seconds (a handled SIGTERM against the grace kill,
  // the grace kill against a 60 s sleep), so a loaded machine cannot turn them into a failure.
  it('cancels through the AbortSignal: SIGTERM reaches the script, then nothing is left', async () => {
    const controller = abortOnceRunning(cancelMarker);
    const outcome = await run('scripts/wait-for-term.py', { signal: controller.signal, cancelGraceMs: 30_000, timeoutMs: 60_000 });
    const error = errorOf(outcome);
    expect(error.code).toBe('CANCELLED');
    expect(error.details.stderr_tail).toContain('got SIGTERM, cleaning up');
    expect(outcome.durationMs).toBeLessThan(15_000);
    expect(await processesWith(cancelMarker)).toEqual([]);
  });

  it('kills a script that ignores SIGTERM once the cancellation grace has passed', async () => {
    const controller = abortOnceRunning(ignoreMarker);
    const outcome = await run('scripts/ignore-term.py', { signal: controller.signal, cancelGraceMs: 500, timeoutMs: 60_000 });
    expect(errorOf(outcome).code).toBe('CANCELLED');
    expect(outcome.durationMs).toBeGreaterThanOrEqual(500);
    expect(outcome.durationMs).toBeLessThan(20_000);
    expect(await processesWith(ignoreMarker)).toEqual([]);
  });

  it('does not start a script whose execution is already cancelled', async () => {
    expect(errorOf(await run('scripts/echo.py', { signal: AbortSignal.abort() })).code).toBe('CANCELLED');
  });
});

describe('ScriptSandbox where bubblewrap is missing', () => {
  let packageDir: string;
  beforeAll(async () => {
    packageDir = await writePackage({ 'echo.py': SCRIPTS['scripts/echo.py'], 'background.sh': SCRIPTS['scripts/background.sh'] });
  });
  afterAll(() => removePackage(packageDir));

  it('refuses to run, naming the Debian package and the opt-out', async () => {
    const sandbox = new ScriptSandbox({ isolation: 'bubblewrap', bwrapPath: '/nonexistent/bwrap' });
    const running = sandbox.run({ packageDir, script: 'echo.py', input: {}, timeoutMs: 5000 });
    await expect(running).rejects.toBeInstanceOf(ScriptSandboxUnavailable);
    await expect(running).rejects.toThrow(/bubblewrap.*apt-get install bubblewrap.*SCRIPT_SANDBOX=none/);
    expect(await ScriptSandbox.detect('/nonexistent/bwrap')).toEqual({
      available: false,
      reason: expect.stringContaining('/nonexistent/bwrap'),
    });
  });

  it('detects the installed bubblewrap', async () => {
    expect(await ScriptSandbox.detect()).toEqual({ available: true, reason: null });
  });

  it('runs scripts directly when the operator opted out with SCRIPT_SANDBOX=none', async () => {
    const sandbox = new ScriptSandbox({ isolation: isolationFromEnvironment({ SCRIPT_SANDBOX: 'none' }) });
    const output = outputOf(await sandbox.run({ packageDir, script: 'echo.py', input: [1], timeoutMs: 5000 }));
    expect(output).toMatchObject({ echo: [1], argv0: path.join(packageDir, 'echo.py') });
    expect(output.cwd).toBe(output.home);
  });

  it('without isolation still kills the whole process group at the timeout', async () => {
    const sandbox = new ScriptSandbox({ isolation: 'none' });
    const outcome = await sandbox.run({ packageDir, script: 'background.sh', input: {}, timeoutMs: 1000 });
    expect(errorOf(outcome).code).toBe('HANDLER_TIMEOUT');
    expect(await processesWith(noneMarker)).toEqual([]);
  });

  it('reads the isolation from SCRIPT_SANDBOX and refuses unknown values', () => {
    expect(isolationFromEnvironment({})).toBe('bubblewrap');
    expect(isolationFromEnvironment({ SCRIPT_SANDBOX: 'bubblewrap' })).toBe('bubblewrap');
    expect(() => isolationFromEnvironment({ SCRIPT_SANDBOX: 'off' })).toThrow(/SCRIPT_SANDBOX must be 'bubblewrap' or 'none'/);
  });
});
