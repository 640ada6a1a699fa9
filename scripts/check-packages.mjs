// `npm run check:packages -- <dir>...`: every Agent Skills or TypeScript package under the directories (a checkout of
// anthropics/skills, dcc-mcp-core's examples, a catalog), validated as the registry's intake does, and whether its
// SKILL.md is a valid MCP Skills (SEP-2640) entry as written — what skills/list would list once it is ACTIVE.
// Prints one line per package and a summary; exits 1 when a package is invalid. Needs `npm run build` first.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { SkillCatalogError, skillEntry } from '@modelcontextprotocol/server/ext/skills';
import { loadEitherFormat } from '../dist/apps/cli/src/commands.js';
import { findSkillPackages } from '#skill-loader/package-files.js';
import { readCommandLine } from './command-line.mjs';

const USAGE = 'usage: npm run check:packages -- <dir>...';
const { positionals } = readCommandLine(USAGE, { allowPositionals: true });
if (positionals.length === 0) {
  console.error(USAGE);
  process.exit(2);
}
let valid = 0;
let listable = 0;
const packages = await findSkillPackages(positionals.map((dir) => path.resolve(dir)));
for (const dir of packages) {
  const loaded = await loadEitherFormat(dir);
  const errors = loaded.issues.filter((issue) => issue.severity === 'error');
  const warnings = loaded.issues.length - errors.length;
  let entry = 'no SKILL.md';
  const skillMd = await readFile(path.join(dir, 'SKILL.md')).catch(() => null);
  if (skillMd) {
    const name = loaded.agentSkill?.name ?? loaded.identity.name.replaceAll('_', '-');
    try {
      await skillEntry(`catalog/${name}`, { 'SKILL.md': new Uint8Array(skillMd) });
      entry = 'listed by skills/list';
      listable += loaded.valid ? 1 : 0;
    } catch (error) {
      if (!(error instanceof SkillCatalogError)) throw error;
      entry = `not listed: ${error.problems.map((problem) => problem.message).join('; ')}`;
    }
  }
  valid += loaded.valid ? 1 : 0;
  const verdict = loaded.valid ? `VALID (${warnings} warning${warnings === 1 ? '' : 's'})` : 'INVALID';
  console.log(`${verdict.padEnd(22)} ${path.relative(process.cwd(), dir) || '.'} — ${entry}`);
  for (const issue of errors) console.log(`    error ${issue.file}${issue.path}: ${issue.message}`);
}
console.log(`${valid} of ${packages.length} packages valid; ${listable} of them listed by the MCP Skills extension as written`);
process.exitCode = valid === packages.length ? 0 : 1;
