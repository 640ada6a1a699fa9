import { describeValue } from '#skill-loader/describe.js';
import type { IssueList } from '#skill-loader/issues.js';
import { formatValidationErrors, type SchemaValidator } from './json-schemas.js';
import { entryPointer, type EntrySite } from './tool-flags.js';
import type { ScriptToolExample } from './types.js';
import { isMapping } from './yaml-text.js';

const EXAMPLE_KEYS = ['input', 'output', 'description'];

/**
 * A tool's declared examples (promotion evidence), the same shape as definition.json's: `input` (an object),
 * optional `output` (an object: what the tool returns for that input) and optional `description`. Each side is
 * checked against the tool's schema; a mismatch is an error naming the example index.
 */
export function checkToolExamples(
  value: unknown,
  site: EntrySite,
  validators: { input: SchemaValidator | null; output: SchemaValidator | null },
  issues: IssueList,
): ScriptToolExample[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    issues.error(
      'examples',
      site.file,
      entryPointer(site, 'examples'),
      `${site.label}: examples must be a list; found ${describeValue(value)}`,
      'Write examples: [{ input: {...}, output: {...}, description: ... }].',
    );
    return [];
  }
  const examples: ScriptToolExample[] = [];
  value.forEach((raw, index) => {
    const example = readExample(raw, index, site, issues);
    if (example === null) return;
    examples.push(example);
    const label = `example ${index}${example.description ? ` ("${example.description}")` : ''} of ${site.label}`;
    for (const role of ['input', 'output'] as const) {
      const validate = validators[role];
      const side = example[role];
      if (side === undefined || validate === null || validate(side)) continue;
      issues.error(
        'examples',
        site.file,
        entryPointer(site, 'examples', index, role),
        `${label}: ${role} does not match the ${role} schema: ${formatValidationErrors(validate.errors ?? [])}`,
        role === 'input'
          ? `Fix examples[${index}].input so the tool would accept it, or fix the input schema.`
          : `Fix examples[${index}].output to what the tool returns for that input, or fix the output schema.`,
      );
    }
  });
  return examples;
}

function readExample(raw: unknown, index: number, site: EntrySite, issues: IssueList): ScriptToolExample | null {
  if (!isMapping(raw)) {
    issues.error(
      'examples',
      site.file,
      entryPointer(site, 'examples', index),
      `${site.label}: example ${index} must be a mapping with input; found ${describeValue(raw)}`,
      'Write the example as { input: {...}, output: {...} }.',
    );
    return null;
  }
  for (const key of Object.keys(raw)) {
    if (EXAMPLE_KEYS.includes(key)) continue;
    issues.warning(
      'examples',
      site.file,
      entryPointer(site, 'examples', index, key),
      `${site.label}: example ${index} key '${key}' is not read (ignored)`,
      `Example keys are ${EXAMPLE_KEYS.join(', ')}.`,
    );
  }
  let ok = true;
  const fail = (key: string, message: string, hint: string) => {
    ok = false;
    issues.error('examples', site.file, entryPointer(site, 'examples', index, key), `${site.label}: example ${index} ${message}`, hint);
  };
  if (raw.input === undefined) fail('input', 'has no input', 'Add input: { ... } with the arguments the tool is called with.');
  else if (!isMapping(raw.input))
    fail('input', `input must be an object; found ${describeValue(raw.input)}`, 'Tool arguments are an object.');
  if (raw.output !== undefined && !isMapping(raw.output)) {
    fail(
      'output',
      `output must be an object; found ${describeValue(raw.output)}`,
      'Write the structured result the tool returns (an object).',
    );
  }
  if (raw.description !== undefined && typeof raw.description !== 'string') {
    fail('description', `description must be a string; found ${describeValue(raw.description)}`, 'Write the description as text.');
  }
  if (!ok) return null;
  return {
    input: raw.input as Record<string, unknown>,
    ...(raw.output !== undefined ? { output: raw.output as Record<string, unknown> } : {}),
    ...(typeof raw.description === 'string' ? { description: raw.description } : {}),
  };
}
