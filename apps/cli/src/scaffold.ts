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

/**
 * The files `skill-registry init --format agent-skills <domain>/<name>` writes: an Agent Skills package (seed 004)
 * with one script tool in tools.yaml, a declared example that `skill-registry test` runs in the script sandbox.
 */
export function scaffoldAgentSkillsFiles(domain: string, name: string): Record<string, string> {
  const skillName = agentSkillsSpelling(name);
  return {
    'SKILL.md': `---
name: ${skillName}
description: >-
  Describe what ${skillName} does for an engineer and when to use it, in one or two sentences.
metadata:
  dcc-mcp:
    version: "0.1.0"
    layer: domain
    tags: [${domain}]
    tools: tools.yaml
---

# ${name}

What the skill does, its tools, their inputs and outputs, and their limits.
`,
    'tools.yaml': `tools:
  - name: double_it
    description: Doubles a value.
    source_file: scripts/double_it.py
    input_schema:
      type: object
      required: [value]
      additionalProperties: false
      properties:
        value: { type: number, description: The value to double }
    output_schema:
      type: object
      required: [doubled]
      properties:
        doubled: { type: number, description: Twice the value }
    idempotent: true
    read_only: true
    timeout_seconds: 30
    examples:
      - description: doubles 2
        input: { value: 2 }
        output: { doubled: 4 }
`,
    'scripts/double_it.py': `import json
import sys

# The tool's input arrives as one JSON object on stdin; its output is one JSON object on stdout.
args = json.load(sys.stdin)
print(json.dumps({"doubled": args["value"] * 2}))
`,
  };
}
