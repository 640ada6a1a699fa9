import { ProtocolError } from '@modelcontextprotocol/server';
import type { StoredToolGroup } from '#contracts/index.js';
import type { ExposedSkill, ExposedSkills, ToolFilter } from '../tool-definitions/exposed-skills.js';
import { DISCOVERY_TOOLS } from '../search/discovery-tools.js';
import { LoadedSkills } from '../mcp-protocol/loaded-skills.js';
import { LOADING_TOOLS } from './loading-tool-definitions.js';
import { MAX_SKILL_STUBS, McpToolList, PROGRESSIVE_ABOVE_TOOLS, TOOLS_PAGE_SIZE } from './mcp-tool-list.js';

function skill(name: string, overrides: Partial<ExposedSkill> = {}): ExposedSkill {
  return {
    name,
    skillName: name,
    version: '1.0.0',
    status: 'ACTIVE',
    description: `${name} does things`,
    inputSchema: { type: 'object', properties: {} },
    outputSchema: { type: 'object', properties: {} },
    readOnly: false,
    idempotent: true,
    domain: 'demo',
    agent: 'demo',
    phase: 1,
    tags: [],
    timeoutSeconds: 10,
    contentHash: `hash-${name}`,
    deprecationReason: null,
    deprecationSuccessor: null,
    deprecationSunset: null,
    dependsOn: [],
    exposure: {},
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    toolGroup: null,
    deferLoading: false,
    taskSupport: 'forbidden',
    ...overrides,
  } as ExposedSkill;
}

/** Two tools of one Agent Skills skill `rig` whose second sits in the dormant group `extra`. */
function groupedSkill(): ExposedSkill[] {
  const groups: StoredToolGroup[] = [{ name: 'extra', description: 'Extra tools.', default_active: false, tools: ['b'] }];
  return [
    skill('rig__a', { skillName: 'rig', exposure: { groups } }),
    skill('rig__b', { skillName: 'rig', exposure: { groups }, toolGroup: 'extra' }),
  ];
}

/** ExposedSkills over a fixed list whose generation the test moves. */
function exposedOf(skills: ExposedSkill[]) {
  const state = { skills, generation: 1 };
  const exposed = {
    list: (_filter: ToolFilter) => state.skills,
    find: (name: string) => state.skills.find((candidate) => candidate.name === name),
    get catalogGeneration() {
      return state.generation;
    },
  } as unknown as ExposedSkills;
  return { exposed, state };
}

const listOf = (skills: ExposedSkill[], mode: 'auto' | 'all' | 'progressive' = 'auto') =>
  new McpToolList(exposedOf(skills).exposed, { MCP_TOOL_EXPOSURE: mode });
const ALL = new LoadedSkills('all');
const fixedNames = [...DISCOVERY_TOOLS, ...LOADING_TOOLS].map((tool) => tool.name);

describe('McpToolList', () => {
  const names = Array.from({ length: TOOLS_PAGE_SIZE + 50 }, (_, i) => `skill_${String(i).padStart(4, '0')}`);

  it('pages the discovery tools, then every skill in name order, with a cursor naming the last tool', () => {
    const list = listOf(names.map((name) => skill(name)));
    const first = list.page({}, ALL, undefined);
    expect(first.tools).toHaveLength(TOOLS_PAGE_SIZE);
    expect(first.tools.slice(0, 2).map((tool) => tool.name)).toEqual(DISCOVERY_TOOLS.map((tool) => tool.name));
    const second = list.page({}, ALL, first.nextCursor as string);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tools, ...second.tools].map((tool) => tool.name)).toEqual([...DISCOVERY_TOOLS.map((tool) => tool.name), ...names]);
  });

  it('refuses a cursor it did not issue with JSON-RPC -32602', () => {
    const list = listOf([skill('a')]);
    expect(() => list.page({}, ALL, 'not*a*cursor')).toThrow(ProtocolError);
    try {
      list.page({}, ALL, 'not*a*cursor');
    } catch (error) {
      expect((error as ProtocolError).code).toBe(-32602);
    }
  });

  it('changes its fingerprint only when a listed tool changes', () => {
    const { exposed, state } = exposedOf([skill('a'), skill('b')]);
    const list = new McpToolList(exposed, { MCP_TOOL_EXPOSURE: 'auto' });
    const before = list.fingerprint({}, ALL);
    state.generation++;
    expect(list.fingerprint({}, ALL)).toBe(before);
    state.skills = [skill('a'), skill('b', { status: 'DEPRECATED', deprecationReason: 'old' })];
    state.generation++;
    expect(list.fingerprint({}, ALL)).not.toBe(before);
  });

  it('never lists or calls a skill named like a discovery or loading tool', () => {
    const list = listOf([skill('search_skills'), skill('load_skill'), skill('z')]);
    expect(list.page({}, ALL, undefined).tools.map((tool) => tool.name)).toEqual(['search_skills', 'get_skill_info', 'z']);
    expect(list.page({}, ALL, undefined).tools[0]).toBe(DISCOVERY_TOOLS[0]);
    expect(list.findSkill('search_skills', {})).toBeUndefined();
    expect(list.findSkill('load_skill', {})).toBeUndefined();
  });

  it('chooses progressive exposure in mode auto only above the tool threshold, and obeys a fixed mode', () => {
    const small = Array.from({ length: PROGRESSIVE_ABOVE_TOOLS }, (_, i) => skill(`s_${i}`));
    expect(listOf(small).modeFor({})).toBe('all');
    expect(listOf([...small, skill('one_more')]).modeFor({})).toBe('progressive');
    expect(listOf([...small, skill('one_more')], 'all').modeFor({})).toBe('all');
    expect(listOf([skill('a')], 'progressive').modeFor({})).toBe('progressive');
  });

  it('in progressive mode lists the fixed tools and a stub per unloaded skill, then the loaded skill with its active groups', () => {
    const list = listOf([skill('alpha'), ...groupedSkill()], 'progressive');
    const loaded = new LoadedSkills('progressive');
    const names = () => list.page({}, loaded, undefined).tools.map((tool) => tool.name);
    expect(names()).toEqual([...fixedNames, '__skill__alpha', '__skill__rig']);
    const before = list.fingerprint({}, loaded);
    loaded.load('rig', []);
    expect(names()).toEqual([...fixedNames, '__group__rig__extra', '__skill__alpha', 'rig__a']);
    expect(list.fingerprint({}, loaded)).not.toBe(before);
    loaded.setGroup('rig', 'extra', true);
    expect(names()).toEqual([...fixedNames, '__skill__alpha', 'rig__a', 'rig__b']);
    const stub = list.page({}, loaded, undefined).tools.find((tool) => tool.name === '__skill__alpha');
    expect(stub).toMatchObject({ inputSchema: { type: 'object' }, _meta: { 'dcc.deferred_hint': true } });
    expect(stub?.description).toContain('load_skill');
  });

  it('leaves the skill stubs out when more than the stub limit are unloaded', () => {
    const many = Array.from({ length: MAX_SKILL_STUBS + 1 }, (_, i) => skill(`m_${String(i).padStart(3, '0')}`));
    const list = listOf(many, 'progressive');
    const loaded = new LoadedSkills('progressive');
    expect(list.page({}, loaded, undefined).tools.map((tool) => tool.name)).toEqual(fixedNames);
    loaded.load('m_000', []);
    expect(list.page({}, loaded, undefined).tools.map((tool) => tool.name)).toEqual(
      [...fixedNames, ...many.slice(1).map((s) => `__skill__${s.name}`), 'm_000'].sort(byFixedThenName),
    );
  });
});

function byFixedThenName(a: string, b: string): number {
  const fa = fixedNames.indexOf(a);
  const fb = fixedNames.indexOf(b);
  if (fa >= 0 || fb >= 0) return (fa < 0 ? Infinity : fa) - (fb < 0 ? Infinity : fb);
  return a < b ? -1 : a > b ? 1 : 0;
}
