// The drill's own skill packages: small echo skills, force-promoted to ACTIVE so that executions
// (and their refusals) can be reached; the project's skills/ folder supplies the REGISTERED ones.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

export const ECHO_SKILLS = ['fuzz_echo', 'fuzz_echo_b'];

export async function writeEchoSkills(root = null) {
  const dir = root ?? (await mkdtemp(path.join(os.tmpdir(), 'fuzz-skills-')));
  for (const name of ECHO_SKILLS) {
    const packageDir = path.join(dir, 'fuzz', name);
    await mkdir(packageDir, { recursive: true });
    const definition = {
      name,
      version: '1.0.0',
      domain: 'fuzz',
      agent: 'fuzz',
      description: 'Echoes a text back with its length (fuzz drill fixture).',
      phase: 1,
      tools_required: [],
      input_schema: 'schema.EchoInput',
      output_schema: 'schema.EchoOutput',
      timeout_seconds: 5,
      retries: 0,
      idempotent: true,
      tags: ['fuzz', 'echo'],
      examples: [{ input: { text: 'hi' }, output: { text: 'hi', length: 2 } }],
    };
    await writeFile(path.join(packageDir, 'definition.json'), JSON.stringify(definition, null, 2));
    await writeFile(
      path.join(packageDir, 'SKILL.md'),
      `---\nname: ${name.replaceAll('_', '-')}\ndescription: ${definition.description}\n---\n\n# ${name}\n`,
    );
    await writeFile(
      path.join(packageDir, 'schema.ts'),
      `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({ text: z.string().min(1).describe('Text to echo back') }).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`,
    );
    await writeFile(
      path.join(packageDir, 'handler.ts'),
      `import { SkillBase } from '@skill-registry/sdk';
import { EchoInput, EchoOutput } from './schema.js';
export class EchoHandler extends SkillBase<typeof EchoInput, typeof EchoOutput> {
  static readonly inputSchema = EchoInput;
  static readonly outputSchema = EchoOutput;
  async execute(input: { text: string }) {
    return { text: input.text, length: input.text.length };
  }
}
`,
    );
    await writeFile(path.join(packageDir, 'handler.spec.ts'), '// fuzz drill fixture\n');
  }
  return dir;
}

/**
 * Force-promotes the echo skills and reads the catalog: the targets the generators aim at
 * (ACTIVE: executable and deprecatable; REGISTERED: promotable).
 */
export async function prepareTargets(baseUrl, adminToken) {
  const headers = { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' };
  const catalog = async () => (await (await fetch(`${baseUrl}/v1/skills?limit=100`, { headers })).json()).items;
  const active = new Set((await catalog()).filter((s) => s.status === 'ACTIVE').map((s) => s.name));
  for (const name of ECHO_SKILLS.filter((n) => !active.has(n))) {
    const response = await fetch(`${baseUrl}/v1/admin/skills/${name}/versions/1.0.0/promote`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ force: true, reason: 'fuzz drill fixture' }),
    });
    if (response.status !== 200) throw new Error(`could not activate ${name}: ${response.status} ${await response.text()}`);
  }
  const items = await catalog();
  const pick = (status) => items.filter((s) => s.status === status).map((s) => ({ name: s.name, version: s.version }));
  // Every REGISTERED version, not only current ones: an older one (skills/previous) is promotable too.
  const versions = (
    await Promise.all(
      items.map(async (s) => (await (await fetch(`${baseUrl}/v1/skills/${s.name}/versions`, { headers })).json()).items ?? []),
    )
  ).flat();
  const registered = versions.filter((v) => v.status === 'REGISTERED').map((v) => ({ name: v.name, version: v.version }));
  // One execution, ended (cancelled while queued: no executor runs here), so that cases reach what is behind a real id —
  // its reads, its event stream with any resume position, a cancel that finds it ended — and change nothing.
  const created = await fetch(`${baseUrl}/v1/skills/${ECHO_SKILLS[0]}/executions`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ input: { text: 'fuzz drill fixture' } }),
  });
  const { id: execution } = await created.json();
  if (created.status !== 202) throw new Error(`could not create the fixture execution: ${created.status}`);
  const cancelled = await fetch(`${baseUrl}/v1/executions/${execution}/cancel`, { method: 'POST', headers, body: '{}' });
  if (cancelled.status !== 200) throw new Error(`could not cancel the fixture execution: ${cancelled.status} ${await cancelled.text()}`);
  const targets = { active: pick('ACTIVE'), registered, execution };
  if (!targets.active.length || !targets.registered.length) throw new Error(`unexpected catalog: ${JSON.stringify(targets)}`);
  return targets;
}
