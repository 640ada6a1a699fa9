import { describe, expect, it } from '@jest/globals';
import { bubblewrapArguments } from './bubblewrap-arguments.js';
import { interpreterFor } from './interpreters.js';
import { BoundedOutput, StreamTail } from './output-capture.js';
import { packageRelativePath } from './script-request.js';
import { scriptEnvironment } from './script-environment.js';
import { resolveLimits } from './script-limits.js';

describe('script sandbox rules', () => {
  it('picks the interpreter by extension', () => {
    expect(['a.py', 'b.sh', 'c.bash', 'd.js', 'e.mjs', 'F.PY', 'g.rb', 'Makefile'].map(interpreterFor)).toEqual([
      'python3',
      'bash',
      'bash',
      'node',
      'node',
      'python3',
      null,
      null,
    ]);
  });

  it("builds the script's environment from nothing but the scratch directory and the request", () => {
    process.env.DATABASE_URL = 'postgres://secret';
    try {
      expect(scriptEnvironment('/scratch', { SKILL_NAME: 'x' })).toEqual({
        SKILL_NAME: 'x',
        PATH: '/usr/local/bin:/usr/bin:/bin',
        HOME: '/scratch',
        TMPDIR: '/scratch',
        LANG: 'C.UTF-8',
      });
    } finally {
      delete process.env.DATABASE_URL;
    }
    expect(() => scriptEnvironment('/scratch', { PATH: '/evil' })).toThrow(/PATH is set by the sandbox/);
    expect(() => scriptEnvironment('/scratch', { 'A=B': 'x' })).toThrow(/Invalid environment variable name/);
  });

  it('keeps script paths inside the package', () => {
    expect(packageRelativePath('scripts/./run.py')).toBe('scripts/run.py');
    expect(packageRelativePath('scripts/../run.py')).toBe('run.py');
    expect(['../run.py', 'a/../../run.py', '/run.py', '', '.'].map(packageRelativePath)).toEqual([null, null, null, null, null]);
  });

  it('bounds stdout and keeps the tail of stderr', () => {
    const stdout = new BoundedOutput(4);
    expect(stdout.push(Buffer.from('abc'))).toBe(true);
    expect(stdout.push(Buffer.from('de'))).toBe(false);
    expect(stdout.overflowed).toBe(true);
    const stderr = new StreamTail(5);
    for (const part of ['hello ', 'wor', 'ld', '!!', 'é']) stderr.push(Buffer.from(part));
    expect(stderr.text()).toBe('d!!é'); // the last 5 bytes: é is two
  });

  it('refuses limits that are not positive integers', () => {
    expect(resolveLimits({ maxProcesses: 8 })).toMatchObject({ maxProcesses: 8, maxStdoutBytes: 1024 * 1024, maxStderrBytes: 64 * 1024 });
    expect(() => resolveLimits({ maxMemoryMb: 0 })).toThrow(/maxMemoryMb/);
  });

  it('mounts the package read-only at /skill and makes the root read-only last', () => {
    const args = bubblewrapArguments({
      layout: { rootEntries: [{ name: 'bin', symlinkTarget: 'usr/bin' }], etcEntries: ['ld.so.cache'] },
      packageDir: '/cache/pkg',
      scratchDir: '/tmp/run',
      environment: { PATH: '/usr/bin' },
      command: ['/usr/bin/python3', '/skill/x.py'],
    });
    const joined = args.join(' ');
    expect(joined).toContain('--unshare-all --unshare-user --disable-userns --die-with-parent --new-session');
    expect(joined).toContain('--clearenv --setenv PATH /usr/bin');
    expect(joined).toContain('--ro-bind /cache/pkg /skill --bind /tmp/run /scratch --bind /tmp/run /tmp');
    expect(joined).toContain('--symlink usr/bin /bin');
    expect(joined).toMatch(/--remount-ro \/ --chdir \/scratch -- \/usr\/bin\/python3 \/skill\/x\.py$/);
  });
});
