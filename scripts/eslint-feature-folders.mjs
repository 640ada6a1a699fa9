/**
 * An ESLint rule no plugin has (import-x's no-cycle sees file cycles, not folder ones): within one app's
 * or lib's `src/`, two top-level folders never import each other. When `a/` imports `b/`, `b/` stands
 * below `a/`; if `b/` also imports `a/`, one feature is split over two folders or a shared piece sits in
 * the wrong one (style.md: a new capability is one feature folder).
 *
 * Each import from `<src>/<a>/…` of `<src>/<b>/…` is reported when any non-spec file of `<src>/<b>/`
 * imports `<src>/<a>/`. The other folder's imports are read from disk (a regex over its files, the same
 * relative specifiers TypeScript resolves), once per folder per lint run.
 */
import fs from 'node:fs';
import path from 'node:path';

const SOURCE_ROOT = /^(.*[\\/](?:apps|libs)[\\/][^\\/]+[\\/]src)[\\/]([^\\/]+)[\\/]/;
const RELATIVE_IMPORT =
  /(?:^|[\s;])(?:import|export)\b[^'"`;]*?\bfrom\s*['"](\.{1,2}\/[^'"]+)['"]|\bimport\(\s*['"](\.{1,2}\/[^'"]+)['"]\s*\)/g;

/** `<src>/<folder>` → the top-level folders of `<src>` its non-spec files import (with one importing file each). */
const importsByFolder = new Map();

function isSource(file) {
  return file.endsWith('.ts') && !file.endsWith('.spec.ts') && !file.endsWith('.d.ts');
}

function topFolder(root, target) {
  const relative = path.relative(root, target);
  if (relative.startsWith('..') || path.isAbsolute(relative)) return null;
  const parts = relative.split(path.sep);
  return parts.length > 1 ? parts[0] : null;
}

function folderImports(root, folder) {
  const key = path.join(root, folder);
  let found = importsByFolder.get(key);
  if (found) return found;
  found = new Map();
  const walk = (dir) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (isSource(full)) {
        for (const match of fs.readFileSync(full, 'utf8').matchAll(RELATIVE_IMPORT)) {
          const target = topFolder(root, path.resolve(path.dirname(full), match[1] ?? match[2]));
          if (target && target !== folder && !found.has(target)) found.set(target, path.relative(root, full));
        }
      }
    }
  };
  if (fs.existsSync(key)) walk(key);
  importsByFolder.set(key, found);
  return found;
}

const noMutualFolders = {
  meta: {
    type: 'problem',
    docs: { description: 'two top-level folders of one src/ never import each other' },
    schema: [],
    messages: {
      mutual:
        '{{from}}/ imports {{to}}/ and {{to}}/ imports {{from}}/ ({{back}}): one feature split over two folders, or a shared piece in the wrong one; keep the imports one way',
    },
  },
  create(context) {
    const file = context.filename;
    const located = SOURCE_ROOT.exec(file);
    if (!located || !isSource(file)) return {};
    const [, root, from] = located;
    const check = (node, specifier) => {
      if (typeof specifier !== 'string' || !specifier.startsWith('.')) return;
      const to = topFolder(root, path.resolve(path.dirname(file), specifier));
      if (!to || to === from) return;
      const back = folderImports(root, to).get(from);
      if (back) context.report({ node, messageId: 'mutual', data: { from, to, back } });
    };
    return {
      ImportDeclaration: (node) => check(node.source, node.source.value),
      ExportNamedDeclaration: (node) => node.source && check(node.source, node.source.value),
      ExportAllDeclaration: (node) => check(node.source, node.source.value),
      ImportExpression: (node) => node.source.type === 'Literal' && check(node.source, node.source.value),
    };
  },
};

export const featureFolders = { rules: { 'no-mutual-folders': noMutualFolders } };
