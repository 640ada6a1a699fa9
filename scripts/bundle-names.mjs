// Drops the `__name(…)` calls of an esbuild bundle built with `keepNames` wherever JavaScript gives the function the
// same name by itself, so that the name costs nothing at run time. esbuild wraps every named function and class in
// `__name(fn, "name")`, an Object.defineProperty, also where nothing was renamed (evanw/esbuild#2605, open): a closure
// made per request (`const onAbort = () => …`, `{ next: () => … }`, fastify's `function next()` per hook run) paid a
// defineProperty each time it was made — 45 a synchronous call in the registry, 27 in the executor (counted on
// 2026-12-07); about 7% of the registry's CPU per execution at concurrency 32, alternating with and without
// (docs/benchmarks.md, within that machine's drift).
//
// Dropped, each exactly where the language names the function the same (ECMA-262 NamedEvaluation), so every `.name`
// stays what keepNames made it:
// - `const|let|var x = __name(<anonymous function, arrow or class>, "x")`, `x = __name(…, "x")` and
//   `{ x: __name(…, "x") }` (a plain property, not computed) → the function itself;
// - `__name(function x() {…}, "x")` → the function itself (a named function expression is named already);
// - `__name(x, "x");` beside `function x`, `class x` or `let x = <anonymous function>` in the same block → removed.
// Everything else (a renamed `x2`, `this` in a class's static block, any other shape) is left as esbuild wrote it.
// No esbuild option does this, hence the hand-written pass; acorn (a dev dependency) parses the bundle.
import { parse } from 'acorn';

const ANONYMOUS_DEFINITIONS = new Set(['FunctionExpression', 'ArrowFunctionExpression', 'ClassExpression']);

/** The name string of a `__name(target, "name")` call, or null when `node` is not one. */
function nameCall(node) {
  if (node?.type !== 'CallExpression' || node.callee.type !== 'Identifier' || node.callee.name !== '__name') return null;
  const [target, name] = node.arguments;
  if (node.arguments.length !== 2 || target.type === 'SpreadElement') return null;
  return name.type === 'Literal' && typeof name.value === 'string' ? name.value : null;
}

/** The name the language gives an anonymous function written as `node` in `parent` (NamedEvaluation), or null. */
function contextName(node, parent) {
  if (!parent) return null;
  if (parent.type === 'VariableDeclarator' && parent.init === node && parent.id.type === 'Identifier') return parent.id.name;
  if (parent.type === 'AssignmentExpression' && parent.operator === '=' && parent.right === node && parent.left.type === 'Identifier')
    return parent.left.name;
  if (
    parent.type === 'Property' &&
    parent.value === node &&
    parent.kind === 'init' &&
    !parent.computed &&
    !parent.method &&
    !parent.shorthand
  ) {
    if (parent.key.type === 'Identifier') return parent.key.name;
    if (parent.key.type === 'Literal' && typeof parent.key.value === 'string') return parent.key.value;
  }
  return null;
}

/** Whether `target` gets the name `name` without the call, where the call stands (`parent` is the call's parent). */
function namedAnyway(target, name, call, parent) {
  if (target.type === 'FunctionExpression' || target.type === 'ClassExpression') {
    if (target.id) return target.id.name === name;
  }
  return ANONYMOUS_DEFINITIONS.has(target.type) && !target.id && contextName(call, parent) === name;
}

/**
 * The functions and classes a statement list declares with their own name: `function x`, `class x`, and
 * `let|const|var x = <anonymous function or class>` (how esbuild writes a function declared in a block).
 */
function declaredIn(statements) {
  const names = new Set();
  for (const statement of statements) {
    const declaration = statement.type === 'ExportNamedDeclaration' ? statement.declaration : statement;
    if ((declaration?.type === 'FunctionDeclaration' || declaration?.type === 'ClassDeclaration') && declaration.id)
      names.add(declaration.id.name);
    if (declaration?.type === 'VariableDeclaration')
      for (const declarator of declaration.declarations)
        if (
          declarator.id.type === 'Identifier' &&
          declarator.init &&
          namedAnyway(declarator.init, declarator.id.name, declarator.init, declarator)
        )
          names.add(declarator.id.name);
  }
  return names;
}

/**
 * `code` without its needless `__name` calls, and how many were dropped. Throws when the code does not parse (the
 * bundle then fails rather than ships something this pass did not understand).
 */
export function dropNeedlessNameCalls(code) {
  const ast = parse(code, { ecmaVersion: 'latest', sourceType: 'module' });
  /** Edits as [start, end, replacement], applied in source order (they never overlap). */
  const edits = [];
  let dropped = 0;
  const visit = (node, parent) => {
    const statements = node.type === 'Program' || node.type === 'BlockStatement' || node.type === 'StaticBlock' ? node.body : null;
    if (statements) {
      const declared = declaredIn(statements);
      for (const statement of statements) {
        const name = statement.type === 'ExpressionStatement' ? nameCall(statement.expression) : null;
        const target = name === null ? null : statement.expression.arguments[0];
        if (target?.type === 'Identifier' && target.name === name && declared.has(name)) {
          edits.push([statement.start, statement.end, '']);
          dropped++;
        }
      }
    }
    const name = nameCall(node);
    if (name !== null) {
      const target = node.arguments[0];
      // The call's text around its argument goes; the argument stays as written (and is visited below like any code).
      if (namedAnyway(target, name, node, parent)) {
        edits.push([node.start, target.start, ''], [target.end, node.end, '']);
        dropped++;
      }
    }
    for (const key in node) {
      if (key === 'type' || key === 'start' || key === 'end') continue;
      const value = node[key];
      if (Array.isArray(value)) {
        for (const child of value) if (child && typeof child.type === 'string') visit(child, node);
      } else if (value && typeof value.type === 'string') visit(value, node);
    }
  };
  visit(ast, null);
  edits.sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [start, end, replacement] of edits) {
    out += code.slice(at, start) + replacement;
    at = end;
  }
  return { code: out + code.slice(at), dropped };
}
