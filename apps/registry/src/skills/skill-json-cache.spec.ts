import type { SkillRecord, SkillVersionRecord } from '../catalog/skill-records.js';
import { ifNoneMatchMatches } from './conditional-get.js';
import { SkillJsonCache } from './skill-json-cache.js';

function versionRecord(overrides: Partial<SkillVersionRecord> = {}): SkillVersionRecord {
  const at = new Date('2026-01-01T00:00:00Z');
  return {
    id: '1',
    name: 'echo_text',
    version: '1.0.0',
    versionKey: [1, 0, 0, ''],
    domain: 'demo',
    agent: 'demo',
    description: 'Echoes a text',
    phase: 1,
    toolsRequired: [{ tool_id: 'calculix.run_fea', capability: 'stress_analysis', required: true }],
    inputSchemaRef: 'schema.EchoInput',
    outputSchemaRef: 'schema.EchoOutput',
    inputSchema: null,
    outputSchema: null,
    timeoutSeconds: 10,
    retries: 0,
    idempotent: true,
    maxRetriesPerGate: 0,
    tags: ['test'],
    examples: [],
    readOnly: false,
    dependsOn: [],
    pendingDependencies: [],
    compatibility: {} as SkillVersionRecord['compatibility'],
    format: 'typescript',
    tools: [],
    agentSkill: null,
    exposure: {},
    prompts: [],
    resources: [],
    workflows: [],
    runtimes: [],
    runtimesProbedAt: null,
    scope: 'system',
    packagePath: '/tmp/echo_text',
    contentHash: 'abc',
    validation: [],
    status: 'ACTIVE',
    statusReason: null,
    statusChangedAt: at,
    deprecationReason: null,
    deprecationSuccessor: null,
    deprecationSunset: null,
    deprecatedAt: null,
    lockVersion: 1,
    createdAt: at,
    updatedAt: at,
    ...overrides,
  };
}

const available = JSON.stringify([{ tool_id: 'calculix.run_fea', available: true, reason: null }]);
const unavailable = JSON.stringify([{ tool_id: 'calculix.run_fea', available: false, reason: 'adapter down' }]);

describe('SkillJsonCache ETags', () => {
  it('gives a skill with tools_status a new body and ETag whenever the tools status changes, and the same ones when it does not', () => {
    const cache = new SkillJsonCache();
    const skill: SkillRecord = { name: 'echo_text', versions: [versionRecord()] };
    const up = cache.skillWithTools(skill, available);
    expect(JSON.parse(up.body.toString()).tools_status).toEqual(JSON.parse(available));
    const down = cache.skillWithTools(skill, unavailable);
    expect(down.etag).not.toBe(up.etag);
    expect(down.body.equals(up.body)).toBe(false);
    const upAgain = cache.skillWithTools(skill, available);
    expect(upAgain.etag).toBe(up.etag);
    expect(upAgain.body.equals(up.body)).toBe(true);
    expect(cache.skill(skill).etag).not.toBe(up.etag);
  });

  it('gives a new record (a lifecycle move) a new ETag, and the same content the same one', () => {
    const cache = new SkillJsonCache();
    const active = versionRecord();
    const deprecated = versionRecord({ status: 'DEPRECATED', deprecationReason: 'old', deprecatedAt: new Date('2026-02-01T00:00:00Z') });
    expect(cache.version(deprecated).etag).not.toBe(cache.version(active).etag);
    expect(cache.version(deprecated).deprecation).toEqual({ deprecation: `@${Date.UTC(2026, 1, 1) / 1000}` });
    expect(cache.version(active).deprecation).toBeNull();
    expect(new SkillJsonCache().version(versionRecord()).etag).toBe(cache.version(active).etag);
  });
});

describe('If-None-Match', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
  ])('%j matches "abc": %s', (header, matches) => {
    expect(ifNoneMatchMatches(header, etag)).toBe(matches);
  });
  it('does not match without the header', () => expect(ifNoneMatchMatches(undefined, etag)).toBe(false));
});
