// The benchmark skill packages: a no-op pure-logic skill and a handler that never yields.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export async function writeSkill(root, name, body, timeoutSeconds) {
  const dir = path.join(root, 'bench', name);
  await mkdir(dir, { recursive: true });
  const definition = {
    name,
    version: '1.0.0',
    domain: 'bench',
    agent: 'bench',
    description: `Benchmark skill ${name}.`,
    phase: 1,
    tools_required: [],
    input_schema: 'schema.NoopInput',
    output_schema: 'schema.NoopOutput',
    timeout_seconds: timeoutSeconds,
    retries: 0,
    idempotent: true,
    tags: ['bench'],
    examples: [{ input: { n: 1 }, output: { n: 1 } }],
  };
  await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
  await writeFile(path.join(dir, 'SKILL.md'), `---\nname: ${name.replaceAll('_', '-')}\ndescription: ${definition.description}\n---\n`);
  await writeFile(
    path.join(dir, 'schema.ts'),
    `import { z } from '@skill-registry/sdk';
export const NoopInput = z.object({ n: z.number().int().describe('Any number') });
export const NoopOutput = z.object({ n: z.number().int().describe('The same number') });
`,
  );
  await writeFile(
    path.join(dir, 'handler.ts'),
    `import { SkillBase } from '@skill-registry/sdk';
import { NoopInput, NoopOutput } from './schema.js';
export class Handler extends SkillBase<typeof NoopInput, typeof NoopOutput> {
  static readonly inputSchema = NoopInput;
  static readonly outputSchema = NoopOutput;
  async execute(input: { n: number }) { ${body} }
}
`,
  );
  await writeFile(path.join(dir, 'handler.spec.ts'), '// benchmark package\n');
}
