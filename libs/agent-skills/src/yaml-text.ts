import { parseDocument } from 'yaml';
import type { IssueList } from '#skill-loader/issues.js';

/** Outcome of parsing a YAML document: its value, or undefined after an issue was recorded. */
export type YamlParse = { ok: true; value: unknown } | { ok: false };

/**
 * Parse YAML 1.2 (core schema: no implicit dates, `yes` stays a string; duplicate keys are errors; at most 100
 * alias expansions). A syntax error becomes one `json` issue (the category for structured-text syntax) naming the
 * line and column in `file`; `lineOffset` is the line of `file` the text starts after (the frontmatter of SKILL.md
 * starts after line 1).
 */
export function parseYamlText(text: string, file: string, lineOffset: number, issues: IssueList): YamlParse {
  const document = parseDocument(text, { uniqueKeys: true, prettyErrors: true });
  const [error] = document.errors;
  if (error) {
    const position = error.linePos?.[0];
    const where = position ? ` at line ${position.line + lineOffset}, column ${position.col}` : '';
    issues.error(
      'json',
      file,
      '',
      `${file} is not valid YAML${where}: ${firstLine(error.message)}`,
      error.code === 'DUPLICATE_KEY'
        ? 'Write each key once.'
        : 'Fix the YAML syntax (indent nested keys with spaces, quote strings that contain ": " or start with a special character).',
    );
    return { ok: false };
  }
  try {
    return { ok: true, value: document.toJS({ maxAliasCount: 100 }) };
  } catch (cause) {
    issues.error(
      'json',
      file,
      '',
      `${file} cannot be read as data: ${firstLine(String(cause))}`,
      'Remove YAML aliases that expand too far.',
    );
    return { ok: false };
  }
}

/** True for a YAML mapping read as a plain object. */
export function isMapping(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function firstLine(message: string): string {
  return message.split('\n')[0].replace(/ at line \d+, column \d+:?$/, '');
}
