import { HooksFileInvalid, parseHooksFile } from './hook-file.js';

const problemsOf = (text: string): string[] => {
  try {
    parseHooksFile(text, 'hooks.yaml');
  } catch (error) {
    if (error instanceof HooksFileInvalid) return error.problems;
    throw error;
  }
  throw new Error('the file was accepted');
};

describe('the hooks file', () => {
  it('reads YAML with the defaults filled in (priority 100, fail-open, every skill)', () => {
    const hooks = parseHooksFile(
      `hooks:
  - name: no_beta
    phase: pre_flight
    action: { type: deny, reason: beta skills are closed }
  - name: notify
    phase: post_delivery
    priority: 5
    fail_closed: true
    requires_feature_flag: enable_notify
    scope: { domains: [simulation], tags: [beta], skills: ['acme_*'] }
    action: { type: webhook, url: 'http://127.0.0.1:9/hook' }
`,
      'hooks.yaml',
    );
    expect(hooks[0]).toEqual({
      name: 'no_beta',
      phase: 'pre_flight',
      priority: 100,
      fail_closed: false,
      scope: {},
      action: { type: 'deny', reason: 'beta skills are closed' },
    });
    expect(hooks[1]).toMatchObject({
      priority: 5,
      fail_closed: true,
      requires_feature_flag: 'enable_notify',
      scope: { domains: ['simulation'], tags: ['beta'], skills: ['acme_*'] },
      action: { type: 'webhook', url: 'http://127.0.0.1:9/hook', timeout_ms: 5000, retries: 2, headers: {} },
    });
  });

  it('reads the same file written as JSON, and an empty file as no hooks', () => {
    const json = JSON.stringify({ hooks: [{ name: 'tag', phase: 'annotate_me', action: { type: 'annotate', metadata: {} } }] });
    expect(problemsOf(json)).toEqual([expect.stringMatching(/^hooks\[0\]\.phase: /)]);
    const good = JSON.stringify({ hooks: [{ name: 'tag', phase: 'on_tool', action: { type: 'annotate', metadata: { team: 'cae' } } }] });
    expect(parseHooksFile(good, 'hooks.json')[0]).toMatchObject({ phase: 'on_tool', action: { metadata: { team: 'cae' } } });
    expect(parseHooksFile('', 'hooks.yaml')).toEqual([]);
  });

  it('names every problem with its place: unknown keys, bad URLs, bad pointers, bad names, bad flags', () => {
    const problems = problemsOf(`hooks:
  - name: Bad Name
    phase: pre_step
    handler: tools.hooks.x
    action: { type: webhook, url: 'ftp://example.org/x' }
  - name: strip
    phase: pre_delivery
    requires_feature_flag: '9lives'
    action: { type: redact, pointers: ['/secret', '/input/a~2b'] }
`);
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.stringMatching(/^hooks\[0\]\.name: /),
        expect.stringMatching(/^hooks\[0\]: .*handler/),
        expect.stringMatching(/^hooks\[0\]\.action\.url: must be an http/),
        expect.stringMatching(/^hooks\[1\]\.requires_feature_flag: /),
        expect.stringMatching(/^hooks\[1\]\.action\.pointers\[0\]: must point inside/),
        expect.stringMatching(/^hooks\[1\]\.action\.pointers\[1\]: is not a JSON Pointer/),
      ]),
    );
  });

  it('refuses a name declared twice and an action in a phase where it cannot act', () => {
    const problems = problemsOf(`hooks:
  - { name: a, phase: pre_flight, action: { type: deny, reason: x } }
  - { name: a, phase: post_delivery, action: { type: deny, reason: x } }
  - { name: b, phase: pre_step, action: { type: redact, pointers: [/input/x] } }
  - { name: c, phase: on_error, action: { type: rate_limit, limit: 1, window_seconds: 60 } }
`);
    expect(problems).toEqual([
      "hooks[1].name: 'a' is declared twice",
      'hooks[1].phase: a deny hook runs in pre_flight, pre_step, post_step, pre_delivery, not post_delivery',
      'hooks[2].phase: a redact hook runs in pre_delivery, not pre_step',
      'hooks[3].phase: a rate_limit hook runs in pre_flight, pre_step, not on_error',
    ]);
  });

  it('refuses YAML that is not valid, has duplicate keys, or expands aliases without bound', () => {
    expect(problemsOf('hooks: [')[0]).toMatch(/flow sequence|Flow sequence|end/i);
    expect(problemsOf('hooks: []\nhooks: []')[0]).toMatch(/unique|duplicate/i);
    const bomb = [
      'a: &a [x, x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${'b'.repeat(i + 1)}: &${'b'.repeat(i + 1)} [${Array(10)
            .fill(i === 0 ? '*a' : `*${'b'.repeat(i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(problemsOf(bomb)[0]).toMatch(/alias/i);
  });
});
