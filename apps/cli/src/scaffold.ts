import { agentSkillsSpelling } from '#skill-loader/skill-md.js';

/** The files `skill-registry init <domain>/<name>` writes: a small skill that validates, with its own test. */
export function scaffoldFiles(domain: string, name: string): Record<string, string> {
  const className = `${name.replace(/(^|_)([a-z0-9])/g, (_, _sep: string, c: string) => c.toUpperCase())}Handler`;
  const description = `Describe what ${name} does for an engineer, in one or two sentences (at least 20 characters).`;
  const definition = {
    name,
    version: '0.1.0',
    domain,
    agent: domain,
    description,
    phase: 1,
    tools_required: [],
    input_schema: 'schema.Input',
    output_schema: 'schema.Output',
    timeout_seconds: 30,
    retries: 0,
    idempotent: true,
    tags: [domain],
    read_only: true,
    examples: [{ description: 'Doubles a value.', input: { value: 2 }, output: { doubled: 4 } }],
  };
  return {
    'definition.json': `${JSON.stringify(definition, null, 2)}\n`,
    'SKILL.md': `---\nname: ${agentSkillsSpelling(name)}\ndescription: ${description}\n---\n\n# ${name}\n\nWhat it does, its inputs and outputs, and its limits.\n`,
    'schema.ts': `import { z } from '@skill-registry/sdk';

export const Input = z.object({ value: z.number().describe('The value to double') }).strict();
export const Output = z.object({ doubled: z.number().describe('Twice the value') });
export type Input = z.infer<typeof Input>;
export type Output = z.infer<typeof Output>;
`,
    'handler.ts': `import { SkillBase } from '@skill-registry/sdk';
import { Input, Output } from './schema.js';

/** ${description} */
export class ${className} extends SkillBase<typeof Input, typeof Output> {
  static readonly inputSchema = Input;
  static readonly outputSchema = Output;

  async execute(input: Input): Promise<Output> {
    return { doubled: input.value * 2 };
  }
}
`,
    'handler.spec.ts': `import { describe, expect, it } from '@jest/globals';
import { createTestContext } from '@skill-registry/sdk';
import { ${className} } from './handler.js';
import { Input, Output } from './schema.js';

describe('${name}', () => {
  it('doubles the value', async () => {
    const output = await new ${className}(createTestContext()).execute(Input.parse({ value: 21 }));
    expect(Output.parse(output)).toEqual({ doubled: 42 });
  });
});
`,
  };
}
