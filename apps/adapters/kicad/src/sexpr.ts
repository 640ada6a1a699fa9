import { ToolFailure } from '../../common/src/index.js';

/** One S-expression node: an atom (symbol or quoted string, unquoted) or a list. */
export type SExpr = string | SExpr[];

/**
 * Parse KiCad S-expression text (netlists, schematics, boards) into nested arrays. Quoted strings lose their quotes
 * and have `\"`, `\\`, `\n`, `\t` unescaped; atoms are kept as text. Iterative, so deep nesting cannot overflow
 * the stack. Throws ToolFailure (PROGRAM_FAILED) on unbalanced parentheses or an unterminated string.
 */
export function parseSExpr(text: string): SExpr[] {
  const root: SExpr[] = [];
  const stack: SExpr[][] = [root];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text[i];
    if (c === '(') {
      const list: SExpr[] = [];
      stack[stack.length - 1].push(list);
      stack.push(list);
      i++;
    } else if (c === ')') {
      if (stack.length === 1) throw malformed(`unexpected ')' at offset ${i}`);
      stack.pop();
      i++;
    } else if (c === '"') {
      let value = '';
      i++;
      for (;;) {
        if (i >= n) throw malformed('unterminated string');
        const d = text[i];
        if (d === '"') break;
        if (d === '\\' && i + 1 < n) {
          const e = text[i + 1];
          value += e === 'n' ? '\n' : e === 't' ? '\t' : e === 'r' ? '\r' : e;
          i += 2;
          continue;
        }
        value += d;
        i++;
      }
      stack[stack.length - 1].push(value);
      i++;
    } else if (c === ' ' || c === '\n' || c === '\r' || c === '\t') {
      i++;
    } else {
      let j = i;
      while (j < n && !' \n\r\t()"'.includes(text[j])) j++;
      stack[stack.length - 1].push(text.slice(i, j));
      i = j;
    }
  }
  if (stack.length !== 1) throw malformed(`${stack.length - 1} unclosed '('`);
  return root;
}

function malformed(reason: string): ToolFailure {
  return new ToolFailure('PROGRAM_FAILED', `kicad-cli wrote a netlist that could not be read: ${reason}`);
}

/** The children of `list` that are lists headed by `name`, e.g. every `(comp ...)` of `(components ...)`. */
export function children(list: SExpr, name: string): SExpr[][] {
  if (!Array.isArray(list)) return [];
  return list.filter((item): item is SExpr[] => Array.isArray(item) && item[0] === name);
}

/** The first child list headed by `name`, or null. */
export function child(list: SExpr, name: string): SExpr[] | null {
  return children(list, name)[0] ?? null;
}

/** The first atom after the head of the child list `name`: `(value "10k")` → `10k`; null when absent. */
export function atomOf(list: SExpr, name: string): string | null {
  const found = child(list, name);
  const value = found?.[1];
  return typeof value === 'string' ? value : null;
}
