// The scripts' command lines (scripts/command-line.mjs): --help answers with the usage, a mistake with one line and
// the usage (exit 2), never a stack trace. Before, `--help` on the fuzz drill and on `npm run drill` threw parseArgs's error.
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { REPO_ROOT } from '../support/skill-packages.js';

const run = (script: string, ...args: string[]) =>
  spawnSync(process.execPath, [path.join(REPO_ROOT, script), ...args], { cwd: REPO_ROOT, encoding: 'utf8', timeout: 30_000 });

describe('command lines of the drills and checks', () => {
  it.each(['drills/fuzz/main.mjs', 'drills/main.mjs', 'drills/kill-executor.mjs', 'scripts/check-packages.mjs'])(
    '%s: --help prints the usage and exits 0; an unknown option is one line and the usage, exit 2',
    (script) => {
      const help = run(script, '--help');
      expect(help.status).toBe(0);
      expect(help.stdout).toMatch(/^usage: /);

      const wrong = run(script, '--no-such-option');
      expect(wrong.status).toBe(2);
      expect(wrong.stdout).toBe('');
      expect(wrong.stderr).toMatch(/^Unknown option '--no-such-option'[^\n]*\nusage: /);
      expect(wrong.stderr).not.toMatch(/^\s+at /m);
    },
  );
});
