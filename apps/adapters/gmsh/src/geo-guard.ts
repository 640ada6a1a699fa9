import { inputRejected, safeRelativeName } from '../../common/src/index.js';

/** Commands that run programs or touch files outside the scratch directory: never allowed. */
const FORBIDDEN = [
  'SystemCall',
  'NonBlockingSystemCall',
  'OnelabRun',
  'OnelabAction',
  'DeleteFile',
  'RenameFile',
  'CreateDir',
  'GetEnv',
  'SetEnv',
];
/** Commands that read or write a file: their argument must be a plain string literal (checked below). */
const FILE_COMMANDS = ['Merge', 'MergeWithBoundingBox', 'Include', 'Save', 'Print', 'ShapeFromFile'];

interface Token {
  kind: 'string' | 'code';
  text: string;
  line: number;
}

/**
 * Check a gmsh .geo script before it runs. Refuses commands that run programs (SystemCall, OnelabRun, ...),
 * file commands and Printf redirections whose target is not a string literal, options of the solver interface,
 * and any string literal that is an absolute path or contains '..'. The container is the real sandbox; this
 * keeps file access inside the call's scratch directory for honest scripts and obvious attempts alike.
 */
export function checkGeoScript(script: string, what = 'geo'): void {
  const tokens = tokenize(script);
  const literals = tokens.filter((token) => token.kind === 'string');
  // The script with every string literal replaced by a numbered placeholder "#n".
  let counter = 0;
  const code = tokens.map((token) => (token.kind === 'code' ? token.text : `"#${counter++}"`)).join('');

  for (const word of FORBIDDEN) {
    if (new RegExp(`\\b${word}\\b`).test(code)) throw inputRejected(`${what}: '${word}' is not allowed in .geo scripts run by the adapter`);
  }
  if (/\bSolver\s*\./.test(code)) throw inputRejected(`${what}: Solver.* options are not allowed (the adapter runs no solvers from gmsh)`);

  for (const literal of literals) {
    if (
      literal.text.startsWith('/') ||
      literal.text.startsWith('~') ||
      /(^|[/\\])\.\.([/\\]|$)/.test(literal.text) ||
      literal.text.includes('\\')
    ) {
      throw inputRejected(
        `${what} line ${literal.line}: string "${literal.text}" looks like a path outside the call's scratch directory (absolute, '..' or '\\')`,
      );
    }
  }

  const literalOf = (placeholder: string) => literals[Number(placeholder)];
  for (const statement of code.split(';')) {
    const command = new RegExp(`\\b(${FILE_COMMANDS.join('|')})\\b(?!\\s*\\.)([\\s\\S]*)$`).exec(statement);
    if (command) {
      const target = /^\s*"#(\d+)"\s*$/.exec(command[2]);
      if (!target)
        throw inputRejected(
          `${what}: '${command[1]}' must be followed by a plain "file name" literal (found '${command[2].trim().slice(0, 40)}')`,
        );
      const literal = literalOf(target[1]);
      safeRelativeName(literal.text, `${what} line ${literal.line}: ${command[1]} file`);
    }
    const printf = /\bPrintf\s*\(/.exec(statement);
    if (printf) {
      const after = statement.slice(closingParen(statement, printf.index + printf[0].length - 1) + 1);
      if (after.trim() === '') continue;
      const target = /^\s*>>?\s*"#(\d+)"\s*$/.exec(after);
      if (!target)
        throw inputRejected(`${what}: a Printf redirection must name a plain "file name" literal (found '${after.trim().slice(0, 40)}')`);
      const literal = literalOf(target[1]);
      safeRelativeName(literal.text, `${what} line ${literal.line}: Printf target`);
    }
  }
}

/** Index of the parenthesis closing the one at `open` (or the end of the text). */
function closingParen(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    if (text[i] === '(') depth++;
    else if (text[i] === ')' && --depth === 0) return i;
  }
  return text.length - 1;
}

/** Split a script into string literals and code, dropping // and /* *\/ comments. */
function tokenize(script: string): Token[] {
  const tokens: Token[] = [];
  let line = 1;
  let code = '';
  let codeLine = 1;
  const flush = () => {
    if (code) tokens.push({ kind: 'code', text: code, line: codeLine });
    code = '';
  };
  for (let i = 0; i < script.length; i++) {
    const char = script[i];
    if (char === '"') {
      flush();
      let text = '';
      const start = line;
      i++;
      while (i < script.length && script[i] !== '"') {
        if (script[i] === '\\' && i + 1 < script.length) {
          text += script[i] + script[i + 1];
          i += 2;
          continue;
        }
        if (script[i] === '\n') line++;
        text += script[i++];
      }
      tokens.push({ kind: 'string', text, line: start });
      codeLine = line;
      continue;
    }
    if (char === '/' && script[i + 1] === '/') {
      while (i < script.length && script[i] !== '\n') i++;
      i--;
      continue;
    }
    if (char === '/' && script[i + 1] === '*') {
      i += 2;
      while (i < script.length && !(script[i] === '*' && script[i + 1] === '/')) {
        if (script[i] === '\n') line++;
        i++;
      }
      i++;
      code += ' ';
      continue;
    }
    if (!code) codeLine = line;
    if (char === '\n') line++;
    code += char;
  }
  flush();
  return tokens;
}
