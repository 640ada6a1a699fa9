import { readFileSync } from 'node:fs';
import { checkCompatibility } from './check-compatibility.js';
import type { CompatibilityReport, SchemaChange } from './compatibility-report.js';
import { InvalidSchemaError } from './invalid-schema-error.js';

type Verdict = 'compatible' | 'incompatible' | 'invalid';

/** One case of corpus/draft-07-cases.json; `backward` is expected of checkCompatibility(old, new, 'backward'). */
interface DialectCase {
  name: string;
  kind: string;
  old: unknown;
  new: unknown;
  backward: Verdict;
  /** `semantic`: the true answer; `rule`: the answer the checker's rules demand (undecidable, unresolvable, refused). */
  basis: 'semantic' | 'rule';
  reason: string;
  /** Changes the report must hold (each matched on the fields given). */
  changes?: Partial<SchemaChange>[];
}

interface DialectCorpus {
  cases: DialectCase[];
  /** Every semantic case the checker answers otherwise, with why; kept exact by the test below. */
  disagreements: { name: string; verdict: Verdict; reason: string }[];
}

const corpus = JSON.parse(readFileSync(new URL('./corpus/draft-07-cases.json', import.meta.url), 'utf8')) as DialectCorpus;

function run(entry: DialectCase): { verdict: Verdict; report?: CompatibilityReport } {
  try {
    const report = checkCompatibility(entry.old, entry.new, 'backward');
    return { verdict: report.compatible ? 'compatible' : 'incompatible', report };
  } catch (error) {
    if (error instanceof InvalidSchemaError) return { verdict: 'invalid' };
    throw error;
  }
}

const results = corpus.cases.map((entry) => ({ entry, ...run(entry) }));
const semantic = results.filter(({ entry }) => entry.basis === 'semantic');
const disagreeing = semantic.filter(({ entry, verdict }) => verdict !== entry.backward);

describe('the draft-07 compatibility corpus (issue 24 §3)', () => {
  afterAll(() => {
    const agreement = ((semantic.length - disagreeing.length) / semantic.length) * 100;
    const listed = disagreeing.map(({ entry, verdict }) => `  ${entry.name}: expected ${entry.backward}, got ${verdict}`).join('\n');
    console.log(
      `draft-07 corpus: ${results.length} cases, ${semantic.length} semantic, agreement ${agreement.toFixed(1)}%, ` +
        `disagreements ${disagreeing.length}${listed === '' ? '' : `\n${listed}`}`,
    );
  });

  it('has at least 100 cases with unique names, each with a reason', () => {
    expect(corpus.cases.length).toBeGreaterThanOrEqual(100);
    expect(new Set(corpus.cases.map((entry) => entry.name)).size).toBe(corpus.cases.length);
    for (const entry of corpus.cases) expect(entry.reason.length).toBeGreaterThan(0);
  });

  it('never answers "compatible" where the change breaks or the schema is refused', () => {
    const falseCompatible = results
      .filter(({ entry, verdict }) => entry.backward !== 'compatible' && verdict === 'compatible')
      .map(({ entry }) => entry.name);
    expect(falseCompatible).toEqual([]);
  });

  it('gives the answer its rules demand (UNDECIDABLE_KEYWORD, REF_UNRESOLVABLE, SCHEMA_INVALID) on every rule case', () => {
    const wrong = results
      .filter(({ entry, verdict }) => entry.basis === 'rule' && verdict !== entry.backward)
      .map(({ entry, verdict }) => `${entry.name}: ${verdict}`);
    expect(wrong).toEqual([]);
  });

  it('agrees with the semantic verdict on at least 95% of the semantic cases', () => {
    expect((semantic.length - disagreeing.length) / semantic.length).toBeGreaterThanOrEqual(0.95);
  });

  it('lists exactly the semantic cases it disagrees with, each a safe "incompatible" with its reason', () => {
    expect(disagreeing.map(({ entry, verdict }) => ({ name: entry.name, verdict }))).toEqual(
      corpus.disagreements.map(({ name, verdict }) => ({ name, verdict })),
    );
    for (const listed of corpus.disagreements) {
      expect(listed.verdict).toBe('incompatible');
      expect(listed.reason.length).toBeGreaterThan(0);
    }
  });

  it.each(results.filter(({ entry }) => entry.changes !== undefined).map((result) => [result.entry.name, result] as const))(
    'reports the expected changes at pointers of the schema as written: %s',
    (_name, { entry, report }) => {
      for (const change of entry.changes ?? []) expect(report?.changes).toContainEqual(expect.objectContaining(change));
    },
  );
});
