import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { serviceEntry } from '../../scripts/service-entries.mjs';

const MAIN = serviceEntry('registry');

function runMain(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [MAIN], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('exit', (code) => resolve({ code, stderr }));
  });
}

describe('registry process start-up', () => {
  beforeAll(() => {
    if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run "npm run build" first (npm test does)`);
  });

  it('stops with exit code 78 and names each malformed variable', async () => {
    const { code, stderr } = await runMain({ PORT: 'not-a-port', DATABASE_URL: 'mysql://x', LOG_LEVEL: 'info' });
    expect(code).toBe(78);
    expect(stderr).toContain('PORT');
    expect(stderr).toContain('DATABASE_URL');
  });
});
