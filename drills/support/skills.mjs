// Two drill-only skill packages, written into a temp skill root: both sleep `ms` and append one
// byte to their `marker` file per attempt, so the drill can tell from disk how often a handler ran.
// drill_sleep_idem may be retried (idempotent, 2 retries); drill_sleep_once must never run twice.
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

export const IDEMPOTENT = 'drill_sleep_idem';
export const ONCE = 'drill_sleep_once';
export const DRILL_SKILLS = [
  [IDEMPOTENT, '1.0.0'],
  [ONCE, '1.0.0'],
];

const SCHEMA = `import { z } from '@skill-registry/sdk';

export const DrillInput = z.object({
  marker: z.string().describe('Path of a file that gets one byte per attempt'),
  ms: z.number().int().min(0).max(60000).describe('How long the handler sleeps, in milliseconds'),
});
export const DrillOutput = z.object({
  attempt: z.number().int().describe('Attempts recorded in the marker file, this one included'),
});
`;

const HANDLER = `import { SkillBase } from '@skill-registry/sdk';
import { appendFileSync, readFileSync } from 'node:fs';
import { DrillInput, DrillOutput } from './schema.js';

export class DrillHandler extends SkillBase<typeof DrillInput, typeof DrillOutput> {
  static readonly inputSchema = DrillInput;
  static readonly outputSchema = DrillOutput;

  async execute(input: { marker: string; ms: number }) {
    // Recorded before the work starts: a crash mid-sleep still leaves the attempt on disk.
    appendFileSync(input.marker, 'x');
    await new Promise((resolve) => setTimeout(resolve, input.ms));
    return { attempt: readFileSync(input.marker, 'utf8').length };
  }
}
`;

async function writeSkill(root, name, { idempotent, retries }) {
  const dir = path.join(root, 'drill', name);
  await mkdir(dir, { recursive: true });
  const description = `Fault-drill skill: sleeps ms milliseconds and records each attempt in a marker file (${
    idempotent ? 'idempotent, retried' : 'not idempotent, never retried'
  }).`;
  const definition = {
    name,
    version: '1.0.0',
    domain: 'drill',
    agent: 'drill',
    description,
    phase: 1,
    tools_required: [],
    input_schema: 'schema.DrillInput',
    output_schema: 'schema.DrillOutput',
    timeout_seconds: 60,
    retries,
    idempotent,
    tags: ['drill'],
    examples: [],
  };
  await writeFile(path.join(dir, 'definition.json'), JSON.stringify(definition, null, 2));
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---\nname: ${name.replaceAll('_', '-')}\ndescription: ${description}\n---\n\n# ${name}\n\nDrill-only.\n`,
  );
  await writeFile(path.join(dir, 'schema.ts'), SCHEMA);
  await writeFile(path.join(dir, 'handler.ts'), HANDLER);
  await writeFile(path.join(dir, 'handler.spec.ts'), '// drill-only package: exercised by drills/*.mjs\n');
}

/** Writes both packages under `root` (a SKILL_PATHS root). */
export async function writeDrillSkills(root) {
  await writeSkill(root, IDEMPOTENT, { idempotent: true, retries: 2 });
  await writeSkill(root, ONCE, { idempotent: false, retries: 0 });
}

/**
 * Makes `dir` for the drill skills' marker files and returns the executor's setting that lets their sandboxes write
 * there (SANDBOX_TEST_WRITABLE_DIR: the one host directory a test handler may write; they run as another user).
 * `dir`'s parent is the drill's own temporary directory.
 */
export async function markerDir(dir) {
  await mkdir(dir);
  await chmod(dir, 0o777);
  // The drill's temporary directory (mkdtemp: 0700) must be traversable for the sandbox's user to reach it.
  await chmod(path.dirname(dir), 0o711);
  return { SANDBOX_TEST_WRITABLE_DIR: dir };
}
