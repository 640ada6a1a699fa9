import semver from 'semver';
import { SKILL_NAME_PATTERN } from '#skill-loader/definition.js';
import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { isAgentSkillsName, toRegistryName } from './names.js';
import type { SkillDependency } from './types.js';
import { isMapping } from './yaml-text.js';

const HINT_FORMS =
  'Write depends as a list of skill names, "name@<semver range>" or { name, range }, e.g. [dcc-diagnostics, "usd-tools@^1.2.0"].';

/**
 * Dependencies as written in `metadata.dcc-mcp.depends` or `metadata/depends.md`: a list (or comma-separated
 * string) of `name`, `name@range` or `{ name, range }` (`version` is read as a range too). Names may be Agent
 * Skills (kebab-case) or catalog (snake_case) names and come back as catalog names; no range means `*`.
 */
export function parseDepends(raw: unknown, file: string, pointer: string, selfName: string, issues: IssueList): SkillDependency[] {
  if (raw === undefined || raw === null) return [];
  const entries = typeof raw === 'string' ? raw.split(',') : Array.isArray(raw) ? raw : null;
  if (entries === null) {
    issues.error('definition', file, pointer, `depends must be a list of skill names; found ${describeValue(raw)}`, HINT_FORMS);
    return [];
  }
  const depends: SkillDependency[] = [];
  entries.forEach((entry, index) => {
    const at = typeof raw === 'string' ? pointer : `${pointer}/${index}`;
    const dependency = parseEntry(entry, file, at, index, issues);
    if (dependency === null) return;
    if (dependency.name === selfName) {
      issues.error(
        'definition',
        file,
        at,
        `depends[${index}] names the skill itself ('${dependency.name}')`,
        'Remove it: a skill cannot depend on itself.',
      );
    } else if (depends.some((other) => other.name === dependency.name)) {
      issues.error(
        'definition',
        file,
        at,
        `depends[${index}] lists '${dependency.name}' again`,
        'Declare each dependency once, with one range (ranges can be combined: ">=1.2.0 <3.0.0").',
      );
    } else {
      depends.push(dependency);
    }
  });
  return depends;
}

function parseEntry(entry: unknown, file: string, at: string, index: number, issues: IssueList): SkillDependency | null {
  let name: unknown;
  let range: unknown;
  if (typeof entry === 'string') {
    const separator = entry.indexOf('@');
    name = (separator < 0 ? entry : entry.slice(0, separator)).trim();
    range = separator < 0 ? undefined : entry.slice(separator + 1).trim();
  } else if (isMapping(entry)) {
    name = entry.name;
    range = entry.range ?? entry.version;
  } else {
    issues.error('definition', file, at, `depends[${index}] must be a skill name; found ${describeValue(entry)}`, HINT_FORMS);
    return null;
  }
  if (typeof name !== 'string' || name === '') {
    issues.error('definition', file, at, `depends[${index}] has no skill name`, HINT_FORMS);
    return null;
  }
  const registryName = toRegistryName(name);
  if (!(isAgentSkillsName(name) || SKILL_NAME_PATTERN.test(name)) || !SKILL_NAME_PATTERN.test(registryName)) {
    issues.error(
      'definition',
      file,
      at,
      `depends[${index}] '${name}' is not a skill name`,
      'Use the Agent Skills name (kebab-case, e.g. "dcc-diagnostics") or the catalog name (snake_case) of the skill.',
    );
    return null;
  }
  if (range === undefined || range === '') return { name: registryName, range: '*' };
  if (typeof range !== 'string' || semver.validRange(range) === null) {
    issues.error(
      'definition',
      file,
      at,
      `depends[${index}] '${name}' has an invalid version range ${JSON.stringify(range)}`,
      'Use a semver range such as "^1.2.0", ">=1.0.0 <2.0.0" or "1.4.2".',
    );
    return null;
  }
  return { name: registryName, range };
}
