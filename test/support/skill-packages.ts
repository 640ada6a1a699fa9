import { cp, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { agentSkillsSpelling } from '#skill-loader/skill-md.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A temporary SKILL_PATHS root outside the repository. */
export async function tempRoot(prefix = 'skill-root-'): Promise<string> {
  return mkdtemp(path.join(os.tmpdir(), prefix));
}

/** Copies a package of the production catalog (e.g. 'simulation/compare_results') into `root`. */
export async function copyCatalogSkill(root: string, relative: string): Promise<string> {
  const target = path.join(root, relative);
  await cp(path.join(REPO_ROOT, 'skills', relative), target, { recursive: true });
  return target;
}

export interface EchoSkillOptions {
  name?: string;
  version?: string;
  domain?: string;
  definition?: Record<string, unknown>;
  examples?: unknown[];
  schemaSource?: string;
  handlerSource?: string;
}

const ECHO_SCHEMA = `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().min(1).describe('Text to echo back') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`;

const ECHO_HANDLER = `import { SkillBase } from '@skill-registry/sdk';
import { EchoInput, EchoOutput } from './schema.js';
export class EchoHandler extends SkillBase<typeof EchoInput, typeof EchoOutput> {
  static readonly inputSchema = EchoInput;
  static readonly outputSchema = EchoOutput;
  async execute(input: { text: string }) {
    return { text: input.text, length: input.text.length };
  }
}
`;

/** Writes a small, valid test-only skill package (overridable to break it on purpose). */
export async function writeEchoSkill(root: string, options: EchoSkillOptions = {}): Promise<string> {
  const name = options.name ?? 'echo_text';
  const domain = options.domain ?? 'demo';
  const dir = path.join(root, domain, name);
  await mkdir(dir, { recursive: true });
  const definition = {
    name,
    version: options.version ?? '1.0.0',
    domain,
    agent: domain,
    description: 'Echoes a text back with its length (test-only skill).',
    phase: 1,
    tools_required: [],
    input_schema: 'schema.EchoInput',
    output_schema: 'schema.EchoOutput',
    timeout_seconds: 10,
    retries: 0,
    idempotent: true,
    tags: ['test', 'echo'],
    examples: options.examples ?? [{ input: { text: 'hi' }, output: { text: 'hi', length: 2 } }],
    ...options.definition,
  };
  await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${agentSkillsSpelling(name)}\ndescription: ${definition.description}\n---\n\n# ${name}\n`,
  );
  await writeFile(path.join(dir, 'schema.ts'), options.schemaSource ?? ECHO_SCHEMA);
  await writeFile(path.join(dir, 'handler.ts'), options.handlerSource ?? ECHO_HANDLER);
  await writeFile(path.join(dir, 'handler.spec.ts'), '// test-only package: exercised by the registry end-to-end suite\n');
  return dir;
}
