import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { main } from './validate-cli.js';

const fixtures = resolve(dirname(fileURLToPath(import.meta.url)), '../../../test/fixtures/skill-packages');

async function run(...argv: string[]): Promise<{ code: number; output: string }> {
  const lines: string[] = [];
  const code = await main(argv, (line) => lines.push(line));
  return { code, output: lines.join('\n') };
}

describe('validate-cli', () => {
  it('exits 0 and says OK for a valid package', async () => {
    const { code, output } = await run(join(fixtures, 'good/demo/echo_text'));
    expect(code).toBe(0);
    expect(output).toMatch(/^OK {2}echo_text@0\.1\.0 {2}\(.*good\/demo\/echo_text\) {2}0 errors, 0 warnings$/);
  });

  it('exits 1 and prints every issue with its location and hint for a broken package', async () => {
    const { code, output } = await run(join(fixtures, 'good'), join(fixtures, 'broken/demo/bad_example'));
    expect(code).toBe(1);
    expect(output).toContain('INVALID  bad_example@0.1.0');
    expect(output).toContain(
      '  error   [examples] definition.json /examples/1/input: example 1 ("broken") input does not match the input schema: (root) must have required property \'text\'',
    );
    expect(output).toContain('          hint: Fix examples[1].input so the skill would accept it, or fix the input schema.');
    expect(output).toContain('  warning [files] handler.spec.ts: handler.spec.ts is missing');
  });

  it('exits 1 when a directory holds no package, and 2 without arguments', async () => {
    expect(await run(join(fixtures, 'no-such-dir'))).toMatchObject({ code: 1, output: expect.stringContaining('no skill package here') });
    expect((await run()).code).toBe(2);
  });
});
