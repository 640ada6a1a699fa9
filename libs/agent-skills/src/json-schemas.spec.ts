import { IssueList } from '#skill-loader/issues.js';
import { checkJsonSchema } from './json-schemas.js';

// A tool's examples and schemas are its publisher's (tools.yaml, up to 10 MiB): with every violation looked for, each
// failing branch of each item was an error object in the registry's heap (+500 MB for this one example, 2026-12-06).
describe('checkJsonSchema: validators of publishers’ examples', () => {
  it('stop at the first violation of a large example instead of holding an error per item and branch', () => {
    const union = {
      type: 'array',
      items: { anyOf: Array.from({ length: 10 }, (_, index) => ({ type: 'object', required: [`f${index}`] })) },
    };
    const schema = { type: 'object', properties: { items: union } };
    const issues = new IssueList();
    const validate = checkJsonSchema(
      schema,
      { file: 'tools.yaml', pointer: '/tools/0/input_schema', label: 'input_schema', role: 'input' },
      issues,
    );
    expect(issues.items).toEqual([]);
    const heapBefore = process.memoryUsage().heapUsed;
    expect(validate?.({ items: Array.from({ length: 300_000 }, () => ({})) })).toBe(false);
    expect(process.memoryUsage().heapUsed - heapBefore).toBeLessThan(150 * 1024 * 1024);
    expect(validate?.errors?.length).toBeLessThanOrEqual(11);
    expect(validate?.({ items: [{ f2: 1 }] })).toBe(true);
  });
});
