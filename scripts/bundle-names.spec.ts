import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { build } from 'esbuild';
import { dropNeedlessNameCalls } from './bundle-names.mjs';

/**
 * Two modules with the same top-level names (esbuild renames one set: `helper2`, `Thing2`), and functions of every
 * shape made at run time; `names()` reports each one's `.name`.
 */
const MODULES: Record<string, string> = {
  'other.js': `
    export function helper() { return 1; }
    export class Thing {}
    export const fail = () => 'other';
  `,
  'entry.js': `
    import { helper as otherHelper, Thing as OtherThing, fail as otherFail } from './other.js';
    function helper() { return 2; }
    class Thing {}
    const fail = () => 'entry';
    export function names() {
      const made = [];
      for (let i = 0; i < 2; i++) {
        const arrow = () => i;
        let later;
        later = function () { return i; };
        const klass = class {};
        const named = function inner() { return i; };
        const object = { method() {}, prop: () => i, 'quoted-key': function () {}, [\`computed\${i}\`]: () => i };
        function declared() { return i; }
        const local = (() => { const fail = () => i; return fail; })();
        made.push(arrow, later, klass, named, object.method, object.prop, object['quoted-key'], object.computed0 ?? object.computed1, declared, local);
      }
      const wrapped = [helper, Thing, fail, otherHelper, OtherThing, otherFail, (x) => x];
      return [...made, ...wrapped].map((fn) => fn.name);
    }
    export default function () {}
  `,
};

let dir: string;
let bundled: string;

/** The module's exports, evaluated as CommonJS (esbuild's keepNames is the same in every format). */
function load(code: string): { names: () => string[]; default: { name: string } } {
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', code)(module, module.exports);
  return module.exports as never;
}

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'bundle-names-'));
  for (const [name, text] of Object.entries(MODULES)) await writeFile(path.join(dir, name), text);
  const result = await build({
    entryPoints: [path.join(dir, 'entry.js')],
    bundle: true,
    format: 'cjs',
    platform: 'node',
    keepNames: true,
    write: false,
    logLevel: 'silent',
  });
  bundled = result.outputFiles[0]!.text;
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('dropNeedlessNameCalls', () => {
  it('leaves every function and class the name keepNames gave it', () => {
    const { code } = dropNeedlessNameCalls(bundled);
    const before = load(bundled).names();
    expect(before).toContain('helper');
    expect(load(code).names()).toEqual(before);
    expect(load(code).default.name).toBe(load(bundled).default.name);
  });

  it('drops the calls where the language names the function the same, and keeps them where esbuild renamed it', () => {
    // esbuild renamed one module's `helper`, `Thing` and `fail`: those calls are what keeps their names.
    expect(bundled).toMatch(/helper2/);
    const { code, dropped } = dropNeedlessNameCalls(bundled);
    expect(dropped).toBeGreaterThanOrEqual(8);
    const calls = (text: string) => text.match(/__name\(/g)?.length ?? 0;
    expect(calls(code)).toBe(calls(bundled) - dropped);
    expect(code).toMatch(/__name\(helper2, "helper"\)/);
    expect(code).toMatch(/__name\(\(\) => "(entry|other)", "fail"\)/);
    // The closures made per call are no longer wrapped.
    expect(code).not.toMatch(/__name\(\(\) => i, "arrow"\)/);
    expect(code).not.toMatch(/__name\(function\(\) \{\s*return i;\s*\}, "later"\)/);
    expect(code).not.toMatch(/__name\(declared, "declared"\)/);
  });

  it('refuses code it cannot parse rather than pass it on', () => {
    expect(() => dropNeedlessNameCalls('const = ;')).toThrow();
  });
});
