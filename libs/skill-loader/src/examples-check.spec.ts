import { jest } from '@jest/globals';
import Ajv2020Module from 'ajv/dist/2020.js';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ExampleValidator } from './examples-check.js';
import { IssueList } from './issues.js';

// The check's validators are kept on disk as standalone code and loaded again by later starts: what they need of this
// project's own runtime (publishers' patterns, uniqueItems) must be found by that code too.
describe('ExampleValidator: cached validators', () => {
  const input = {
    type: 'object',
    properties: {
      tags: { type: 'array', uniqueItems: true, items: { type: 'object' } },
      code: { type: 'string', pattern: '^(a+)+$' },
    },
  };
  const examples = [
    {
      input: {
        tags: [
          { a: 1, b: 2 },
          { b: 2, a: 1 },
        ],
      },
    },
    { input: { tags: [{ a: 1 }, { a: 2 }], code: 'aaa' } },
    { input: { code: 'a'.repeat(40) + '!' } },
  ];
  let cacheDir: string;

  beforeEach(() => {
    cacheDir = mkdtempSync(join(tmpdir(), 'examples-check-'));
  });
  afterEach(() => rmSync(cacheDir, { recursive: true, force: true }));

  const findings = (validator: ExampleValidator) => {
    const issues = new IssueList();
    validator.check(examples, { input, output: null }, issues);
    return issues.items.map((issue) => issue.path + ' ' + issue.message);
  };

  /** The validator's file, once its background write is done. */
  const cached = async (): Promise<string> => {
    for (let tries = 0; tries < 100; tries++) {
      const files = readdirSync(cacheDir).filter((file) => file.endsWith('.cjs'));
      if (files.length > 0) {
        expect(files).toHaveLength(1);
        return readFileSync(join(cacheDir, files[0] as string), 'utf8');
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error('no validator was cached');
  };

  it('finds the same violations with a fresh validator and with one loaded from the cache', async () => {
    const fresh = findings(new ExampleValidator(cacheDir));
    expect(fresh).toEqual([
      expect.stringMatching(/^\/examples\/0\/input .*must NOT have duplicate items \(items ## 0 and 1 are identical\)/),
      expect.stringMatching(/^\/examples\/2\/input .*must match pattern/),
    ]);
    const code = await cached();
    expect(code).toContain('skill-registry:schema-keywords');
    expect(code).toContain('skill-registry:schema-regexp');
    // Loaded, not compiled again (a cached validator whose `require` fails is silently compiled afresh).
    const compile = jest.spyOn(Ajv2020Module.default.prototype, 'compile');
    try {
      expect(findings(new ExampleValidator(cacheDir))).toEqual(fresh);
      expect(compile).not.toHaveBeenCalled();
    } finally {
      compile.mockRestore();
    }
  });
});

// A publisher's example (up to 10 MiB) against its own union schema: with every violation looked for, each failing
// branch of each item was an error object in the registry's heap (+500 MB for this one example, 2026-12-06).
describe('ExampleValidator: a large invalid example', () => {
  it('reports its first violation without holding an error per item and branch', () => {
    const union = {
      type: 'object',
      properties: {
        items: { type: 'array', items: { anyOf: Array.from({ length: 10 }, (_, index) => ({ type: 'object', required: [`f${index}`] })) } },
      },
    };
    const items = Array.from({ length: 300_000 }, () => ({}));
    const issues = new IssueList();
    const heapBefore = process.memoryUsage().heapUsed;
    new ExampleValidator(null).check([{ input: { items } }], { input: union, output: null }, issues);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(150 * 1024 * 1024);
    expect(issues.items).toHaveLength(1);
    expect(issues.items[0]?.message).toContain("/items/0 must have required property 'f0'");
  });
});
