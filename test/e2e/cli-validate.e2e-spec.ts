import { execFile } from 'node:child_process';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { REPO_ROOT, tempRoot } from '../support/skill-packages.js';

const CLI = path.join(REPO_ROOT, 'dist/apps/cli/src/main.js');

/** The built CLI as a program: its exit code and what it printed. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string }> {
  try {
    const { stdout } = await promisify(execFile)(process.execPath, [CLI, ...args], { cwd: REPO_ROOT });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('skill-registry validate --strict', () => {
  // One warning (a nested vendor metadata block) and no error: valid, but not under --strict.
  const warned = path.join(REPO_ROOT, 'test/fixtures/agent-skills/good/vendor-blocks');

  it('keeps a package with warnings valid by default', async () => {
    const { code, stdout } = await cli('--json', 'validate', warned);
    expect(code).toBe(0);
    const report = JSON.parse(stdout);
    expect(report.valid).toBe(true);
    expect(report.strict).toBeUndefined();
    expect(report.issues.some((issue: { severity: string }) => issue.severity === 'warning')).toBe(true);
  });

  it('counts warnings as errors with --strict, in JSON and in text', async () => {
    const json = await cli('--json', 'validate', '--strict', warned);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ valid: false, strict: true, valid_without_strict: true });
    const text = await cli('validate', '--strict', warned);
    expect(text.code).toBe(1);
    expect(text.stdout).toMatch(/--strict: 1 warning counted as errors; not valid/);
  });

  it('passes a package without findings under --strict', async () => {
    const { code, stdout } = await cli('--json', 'validate', '--strict', path.join(REPO_ROOT, 'skills/electronics/export_bom'));
    expect(JSON.parse(stdout).issues).toEqual([]);
    expect(code).toBe(0);
  });

  it('prints info findings in the report without counting them, even under --strict', async () => {
    // maya-geometry without its one tool that cannot run here, and with allow-implicit-invocation: false, whose
    // info says what the registry does with it (the degraded optional runtimes are the registry's probe, not the CLI's).
    const root = await tempRoot();
    try {
      const dir = path.join(root, 'maya-geometry');
      await cp(path.join(REPO_ROOT, 'test/fixtures/agent-skills/good/maya-geometry'), dir, { recursive: true });
      const tools = await readFile(path.join(dir, 'tools.yaml'), 'utf8');
      await writeFile(path.join(dir, 'tools.yaml'), tools.replace(/ {2}- name: export_fbx[\s\S]*$/, ''));
      await rm(path.join(dir, 'scripts/export_fbx.bat'));
      const skillMd = await readFile(path.join(dir, 'SKILL.md'), 'utf8');
      await writeFile(
        path.join(dir, 'SKILL.md'),
        skillMd.replace('    layer: domain\n', '    layer: domain\n    allow-implicit-invocation: false\n'),
      );
      const json = await cli('--json', 'validate', '--strict', dir);
      expect(json.code).toBe(0);
      const report = JSON.parse(json.stdout);
      expect(report).toMatchObject({ valid: true, strict: true, valid_without_strict: true });
      expect(report.issues.map((issue: { severity: string; path: string }) => `${issue.severity} ${issue.path}`)).toEqual([
        'info /metadata/dcc-mcp/allow-implicit-invocation',
      ]);
      const text = await cli('validate', '--strict', dir);
      expect(text.code).toBe(0);
      expect(text.stdout).toMatch(/^OK {2}maya_geometry@1\.0\.0 .* 0 errors, 0 warnings, 1 info/);
      expect(text.stdout).toMatch(
        / {2}info {4}\[definition\] SKILL\.md \/metadata\/dcc-mcp\/allow-implicit-invocation: allow-implicit-invocation: false is shown/,
      );
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});
