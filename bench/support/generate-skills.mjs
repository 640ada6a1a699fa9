// Writes `count` small, valid skill packages under `root` (for benchmarks).
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

const DOMAINS = ['mechanical', 'electronics', 'firmware', 'simulation', 'thermal', 'optics', 'fluids', 'controls'];
const TAGS = ['fea', 'stress', 'bom', 'erc', 'drc', 'pinmap', 'memory', 'spice', 'mesh', 'tolerance', 'thermal', 'validation'];

export function skillName(index) {
  return `bench_skill_${String(index).padStart(5, '0')}`;
}

export async function generateSkills(root, count) {
  for (let i = 0; i < count; i++) {
    const domain = DOMAINS[i % DOMAINS.length];
    const name = skillName(i);
    const dir = path.join(root, domain, name);
    await mkdir(dir, { recursive: true });
    const definition = {
      name,
      version: '1.0.0',
      domain,
      agent: domain,
      description: `Benchmark skill ${i}: checks ${TAGS[i % TAGS.length]} results of a ${domain} design against limits.`,
      phase: (i % 3) + 1,
      tools_required: i % 4 === 0 ? [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis', required: true }] : [],
      input_schema: 'schema.BenchInput',
      output_schema: 'schema.BenchOutput',
      timeout_seconds: 30,
      retries: 0,
      idempotent: true,
      tags: [TAGS[i % TAGS.length], TAGS[(i * 7 + 3) % TAGS.length], 'bench'].filter((t, k, all) => all.indexOf(t) === k),
      examples: [{ input: { value_mpa: 10, limit_mpa: 20 }, output: { passed: true, margin_mpa: 10 } }],
    };
    await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
    await writeFile(
      path.join(dir, 'SKILL.md'),
      `---\nname: ${name.replaceAll('_', '-')}\ndescription: ${JSON.stringify(definition.description)}\n---\n\n# ${name}\n`,
    );
    await writeFile(
      path.join(dir, 'schema.ts'),
      `import { z } from '@skill-registry/sdk';
export const BenchInput = z.object({
  value_mpa: z.number().describe('Measured value in MPa (check ${i})'),
  limit_mpa: z.number().describe('Allowed value in MPa (check ${i})'),
});
export const BenchOutput = z.object({
  passed: z.boolean().describe('Whether the value is within the limit'),
  margin_mpa: z.number().describe('Limit minus value, in MPa'),
});
`,
    );
    await writeFile(
      path.join(dir, 'handler.ts'),
      `import { SkillBase } from '@skill-registry/sdk';
import { BenchInput, BenchOutput } from './schema.js';
// Handler of generated package ${i}: each package's sources differ, as real packages' do.
export class BenchHandler extends SkillBase<typeof BenchInput, typeof BenchOutput> {
  static readonly inputSchema = BenchInput;
  static readonly outputSchema = BenchOutput;
  async execute(input: { value_mpa: number; limit_mpa: number }) {
    return { passed: input.value_mpa <= input.limit_mpa, margin_mpa: input.limit_mpa - input.value_mpa };
  }
}
`,
    );
    await writeFile(path.join(dir, 'handler.spec.ts'), '// generated benchmark package\n');
  }
}
