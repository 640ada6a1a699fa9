import { ProtocolError } from '@modelcontextprotocol/server';
import type { ExposedSkill, ExposedSkills, ToolFilter } from '../tool-definitions/exposed-skills.js';
import { DISCOVERY_TOOLS } from '../search/discovery-tools.js';
import { McpToolList, TOOLS_PAGE_SIZE } from './mcp-tool-list.js';

function skill(name: string, overrides: Partial<ExposedSkill> = {}): ExposedSkill {
  return {
    name,
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
    ...overrides,
  } as ExposedSkill;
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

describe('McpToolList', () => {
  const names = Array.from({ length: TOOLS_PAGE_SIZE + 50 }, (_, i) => `skill_${String(i).padStart(4, '0')}`);

  it('pages the discovery tools, then every skill in name order, with a cursor naming the last tool', () => {
    const list = new McpToolList(exposedOf(names.map((name) => skill(name))).exposed);
    const first = list.page({}, undefined);
    expect(first.tools).toHaveLength(TOOLS_PAGE_SIZE);
    expect(first.tools.slice(0, 2).map((tool) => tool.name)).toEqual(DISCOVERY_TOOLS.map((tool) => tool.name));
    const second = list.page({}, first.nextCursor as string);
    expect(second.nextCursor).toBeUndefined();
    expect([...first.tools, ...second.tools].map((tool) => tool.name)).toEqual([...DISCOVERY_TOOLS.map((tool) => tool.name), ...names]);
  });

  it('refuses a cursor it did not issue with JSON-RPC -32602', () => {
    const list = new McpToolList(exposedOf([skill('a')]).exposed);
    expect(() => list.page({}, 'not*a*cursor')).toThrow(ProtocolError);
    try {
      list.page({}, 'not*a*cursor');
    } catch (error) {
      expect((error as ProtocolError).code).toBe(-32602);
    }
  });

  it('changes its fingerprint only when a listed tool changes', () => {
    const { exposed, state } = exposedOf([skill('a'), skill('b')]);
    const list = new McpToolList(exposed);
    const before = list.fingerprint({});
    state.generation++;
    expect(list.fingerprint({})).toBe(before);
    state.skills = [skill('a'), skill('b', { status: 'DEPRECATED', deprecationReason: 'old' })];
    state.generation++;
    expect(list.fingerprint({})).not.toBe(before);
  });

  it('never lists or calls a skill named like a discovery tool', () => {
    const list = new McpToolList(exposedOf([skill('search_skills'), skill('z')]).exposed);
    expect(list.page({}, undefined).tools.map((tool) => tool.name)).toEqual(['search_skills', 'get_skill_info', 'z']);
    expect(list.page({}, undefined).tools[0]).toBe(DISCOVERY_TOOLS[0]);
    expect(list.findSkill('search_skills', {})).toBeUndefined();
  });
});
