import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn } from 'node:child_process';
import { ScriptSandbox } from './index.js';
import { removePackage, writePackage } from './script-package.test-support.js';

// Not a timing target (benchmarks live in bench/): this logs what isolation costs per run on this machine.
const RUNS = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

function plainPython(script: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn('/usr/bin/python3', ['-B', script], { stdio: ['pipe', 'pipe', 'inherit'] });
    child.stdin.end('{}');
    child.stdout.resume();
    child.on('error', reject);
    child.on('close', () => resolve(performance.now() - started));
  });
}

describe('ScriptSandbox overhead of a no-op python run', () => {
  let packageDir: string;
  beforeAll(async () => {
    packageDir = await writePackage({ 'noop.py': 'print("{}")\n' });
  });
  afterAll(() => removePackage(packageDir));

  it(`logs the median of ${RUNS} runs with bubblewrap, without isolation and as a plain spawn`, async () => {
    const measure = async (sandbox: ScriptSandbox) => {
      await sandbox.ready();
      const durations: number[] = [];
      for (let i = 0; i < RUNS; i++) {
        const started = performance.now();
        const outcome = await sandbox.run({ packageDir, script: 'noop.py', input: {}, timeoutMs: 10_000 });
        expect(outcome.ok).toBe(true);
        durations.push(performance.now() - started);
      }
      return median(durations);
    };
    const bubblewrap = await measure(new ScriptSandbox({ isolation: 'bubblewrap' }));
    const none = await measure(new ScriptSandbox({ isolation: 'none' }));
    const plain: number[] = [];
    for (let i = 0; i < RUNS; i++) plain.push(await plainPython(`${packageDir}/noop.py`));
    console.log(
      `no-op python, median of ${RUNS}: bubblewrap ${bubblewrap.toFixed(1)} ms, isolation none ${none.toFixed(1)} ms, ` +
        `plain spawn of python3 ${median(plain).toFixed(1)} ms; bubblewrap costs ${(bubblewrap - none).toFixed(1)} ms per run ` +
        `(${(bubblewrap / none).toFixed(2)}x)`,
    );
  });
});
