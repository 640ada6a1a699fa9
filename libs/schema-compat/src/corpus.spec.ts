import { checkCompatibility } from './check-compatibility.js';
import { CORPUS } from './corpus/index.js';

describe('the compatibility corpus', () => {
  it('has at least 150 hand-written pairs with unique names', () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(150);
    expect(new Set(CORPUS.map((entry) => entry.name)).size).toBe(CORPUS.length);
  });

  describe.each(CORPUS.map((entry) => [`${entry.keyword}: ${entry.name}`, entry] as const))('%s', (_title, entry) => {
    it('gets the backward verdict', () => {
      expect(checkCompatibility(entry.old, entry.new, 'backward').compatible).toBe(entry.backward);
    });

    it('gets the forward verdict', () => {
      expect(checkCompatibility(entry.old, entry.new, 'forward').compatible).toBe(entry.forward);
    });

    it('gets the full verdict and reports the expected codes', () => {
      const report = checkCompatibility(entry.old, entry.new, 'full');
      expect(report.compatible).toBe(entry.backward && entry.forward);
      const codes = report.changes.map((change) => change.code);
      for (const code of entry.codes ?? []) expect(codes).toContain(code);
    });
  });
});
