// Writes one valid skill package per generated search document, so the REST part of the benchmark
// searches skills the registry discovered and stored the ordinary way.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const SCHEMA = `import { z } from '@skill-registry/sdk';
export const BenchInput = z.object({ value: z.number().describe('Measured value') });
export const BenchOutput = z.object({ passed: z.boolean().describe('Whether the value is positive') });
`;

const HANDLER = `import { SkillBase } from '@skill-registry/sdk';
import { BenchInput, BenchOutput } from './schema.js';
export class BenchHandler extends SkillBase<typeof BenchInput, typeof BenchOutput> {
  static readonly inputSchema = BenchInput;
  static readonly outputSchema = BenchOutput;
  async execute(input: { value: number }) {
    return { passed: input.value > 0 };
  }
}
`;

export async function writePackages(root, documents) {
  const queue = [...documents];
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let document = queue.shift(); document; document = queue.shift()) {
        const dir = path.join(root, document.domain, document.name);
        await mkdir(dir, { recursive: true });
        const definition = {
          name: document.name,
          version: '1.0.0',
          domain: document.domain,
          agent: document.agent,
          description: document.description,
          phase: document.phase,
          tools_required: document.toolIds.map((toolId) => ({ tool_id: toolId, capability: 'analysis', required: true })),
          input_schema: 'schema.BenchInput',
          output_schema: 'schema.BenchOutput',
          timeout_seconds: 30,
          retries: 0,
          idempotent: true,
          tags: document.tags,
          examples: [{ input: { value: 1 }, output: { passed: true } }],
        };
        await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
        await writeFile(
          path.join(dir, 'SKILL.md'),
          `---\nname: ${document.name.replaceAll('_', '-')}\ndescription: ${document.description}\n---\n\n# ${document.name}\n`,
        );
        await writeFile(path.join(dir, 'schema.ts'), SCHEMA);
        await writeFile(path.join(dir, 'handler.ts'), HANDLER);
        await writeFile(path.join(dir, 'handler.spec.ts'), '// generated benchmark package\n');
      }
    }),
  );
}
