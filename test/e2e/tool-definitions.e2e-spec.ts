import { rm } from 'node:fs/promises';
import { Client, StreamableHTTPClientTransport, isSpecType } from '@modelcontextprotocol/client';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { EXECUTION_SKILLS_ROOT, activate, obliterateQueue } from '../support/executions.js';
import { ADMIN_TOKEN, AGENT_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { tempRoot, writeEchoSkill } from '../support/skill-packages.js';

/**
 * The shapes below are written from each framework's published reference, independently of the
 * registry's code, so a definition that passes here is one the framework accepts as it is.
 */

/** OpenAI Chat Completions `tools[]` entry (function calling): name ≤ 64 of [a-zA-Z0-9_-]; parameters a JSON Schema object. */
const OPENAI_FUNCTION_TOOL = {
  type: 'object',
  required: ['type', 'function'],
  additionalProperties: false,
  properties: {
    type: { const: 'function' },
    function: {
      type: 'object',
      required: ['name'],
      additionalProperties: false,
      properties: {
        name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
        description: { type: 'string' },
        parameters: { type: 'object', required: ['type'], properties: { type: { const: 'object' } } },
        strict: { type: ['boolean', 'null'] },
      },
    },
  },
};

/** Anthropic Messages API `tools[]` entry (client tool): name ≤ 64 of [a-zA-Z0-9_-]; input_schema a JSON Schema of type object. */
const ANTHROPIC_TOOL = {
  type: 'object',
  required: ['name', 'input_schema'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', pattern: '^[a-zA-Z0-9_-]{1,64}$' },
    description: { type: 'string' },
    input_schema: {
      type: 'object',
      required: ['type'],
      properties: {
        type: { const: 'object' },
        properties: { type: ['object', 'null'] },
        required: { type: ['array', 'null'], items: { type: 'string' } },
      },
    },
    cache_control: { type: ['object', 'null'] },
    type: { enum: ['custom', null] },
  },
};

/** MCP `Tool` (specification 2025-11-25, schema.json). */
const MCP_TOOL = {
  type: 'object',
  required: ['name', 'inputSchema'],
  properties: {
    name: { type: 'string' },
    title: { type: 'string' },
    description: { type: 'string' },
    inputSchema: {
      type: 'object',
      required: ['type'],
      properties: {
        $schema: { type: 'string' },
        type: { const: 'object' },
        properties: { type: 'object', additionalProperties: { type: 'object' } },
        required: { type: 'array', items: { type: 'string' } },
      },
    },
    outputSchema: {
      type: 'object',
      required: ['type'],
      properties: {
        $schema: { type: 'string' },
        type: { const: 'object' },
        properties: { type: 'object', additionalProperties: { type: 'object' } },
        required: { type: 'array', items: { type: 'string' } },
      },
    },
    annotations: {
      type: 'object',
      properties: {
        title: { type: 'string' },
        readOnlyHint: { type: 'boolean' },
        destructiveHint: { type: 'boolean' },
        idempotentHint: { type: 'boolean' },
        openWorldHint: { type: 'boolean' },
      },
    },
    _meta: { type: 'object' },
  },
};

/**
 * OpenAI's strict-mode rules ("Structured Outputs: supported schemas"), checked independently: every
 * object has additionalProperties false and requires all its properties, and only supported keywords
 * appear. Returns the broken rules.
 */
function openAiStrictProblems(schema: unknown, at = '#', root = true): string[] {
  if (!schema || typeof schema !== 'object') return [`${at}: not a schema`];
  const node = schema as Record<string, any>;
  const supported = new Set([
    'type',
    'properties',
    'required',
    'additionalProperties',
    'items',
    'enum',
    'const',
    'anyOf',
    '$ref',
    '$defs',
    'definitions',
    'description',
    'title',
    'pattern',
    'format',
    'minimum',
    'maximum',
    'exclusiveMinimum',
    'exclusiveMaximum',
    'multipleOf',
    'minItems',
    'maxItems',
    ...(root ? ['$schema', '$id'] : []),
  ]);
  const problems = Object.keys(node)
    .filter((key) => !supported.has(key))
    .map((key) => `${at}: unsupported keyword ${key}`);
  const types = Array.isArray(node.type) ? node.type : [node.type];
  if (types.includes('object')) {
    if (node.additionalProperties !== false) problems.push(`${at}: additionalProperties is not false`);
    const keys = Object.keys(node.properties ?? {});
    const required = new Set(node.required ?? []);
    if (keys.some((key) => !required.has(key))) problems.push(`${at}: not every property is required`);
  }
  for (const [key, child] of Object.entries(node.properties ?? {}))
    problems.push(...openAiStrictProblems(child, `${at}/properties/${key}`, false));
  if (node.items) problems.push(...openAiStrictProblems(node.items, `${at}/items`, false));
  for (const [index, branch] of (node.anyOf ?? []).entries()) problems.push(...openAiStrictProblems(branch, `${at}/anyOf/${index}`, false));
  for (const [key, child] of Object.entries(node.$defs ?? {})) problems.push(...openAiStrictProblems(child, `${at}/$defs/${key}`, false));
  return problems;
}

const STRICT_SCHEMA = `import { z } from '@skill-registry/sdk';
export const EchoInput = z.object({
  text: z.string().describe('Text to echo back'),
  mode: z.enum(['plain', 'upper']).describe('How to echo it'),
  repeat: z.number().int().min(1).max(3).describe('How many times'),
  tags: z.array(z.object({ key: z.string().describe('Tag key') }).strict()).max(5).describe('Labels'),
}).strict();
export const EchoOutput = z.object({ text: z.string().describe('The same text'), length: z.number().int().describe('Length in characters') });
`;

describe('GET /v1/tool-definitions', () => {
  const queuePrefix = `test-tooldefs-${process.pid}-${Date.now()}`;
  let db: TestDatabase;
  let root: string;
  let registry: RunningRegistry;
  const ajv = new Ajv2020({ strict: false });
  const get = (query: string, token: string | null = AGENT_TOKEN) =>
    call(registry.baseUrl, 'GET', `/v1/tool-definitions${query}`, { token: token ?? undefined });
  const names = (tools: any[]) => tools.map((tool) => tool.name ?? tool.function.name);
  const exposed = ['echo_text', 'firmware_strict', 'quick_noop', 'sleepy', 'thermal_phase2'];

  beforeAll(async () => {
    db = await createTestDatabase('tooldefs');
    root = await tempRoot();
    await writeEchoSkill(root, { name: 'echo_text', domain: 'demo', definition: { tags: ['demo', 'echo'] } });
    await writeEchoSkill(root, {
      name: 'firmware_strict',
      domain: 'firmware',
      schemaSource: STRICT_SCHEMA,
      examples: [{ input: { text: 'hi', mode: 'plain', repeat: 1, tags: [] }, output: { text: 'hi', length: 2 } }],
      definition: { agent: 'embedded', tags: ['firmware', 'echo'], read_only: true },
    });
    await writeEchoSkill(root, { name: 'thermal_phase2', domain: 'thermal', definition: { phase: 2, tags: ['thermal'] } });
    await writeEchoSkill(root, { name: 'never_promoted', domain: 'demo' });
    registry = await startRegistry({
      databaseUrl: db.url,
      skillPaths: [EXECUTION_SKILLS_ROOT, root],
      agentTokens: true,
      queuePrefix,
    });
    await activate(registry.baseUrl, ['echo_text', 'firmware_strict', 'thermal_phase2', 'quick_noop', 'sleepy']);
    const deprecated = await call(registry.baseUrl, 'POST', '/v1/admin/skills/sleepy/deprecate', {
      token: ADMIN_TOKEN,
      body: { reason: 'too slow', successor: 'quick_noop' },
    });
    expect(deprecated.status).toBe(200);
  });

  afterAll(async () => {
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(root, { recursive: true, force: true });
  });

  const storedInputSchema = async (name: string) =>
    (await call(registry.baseUrl, 'GET', `/v1/skills/${name}`, { token: AGENT_TOKEN })).body.input_schema;

  it('format=openai: function tools OpenAI accepts, strict only where the schema meets the strict rules, schemas unchanged', async () => {
    const { status, body } = await get('?format=openai');
    expect(status).toBe(200);
    expect(body.format).toBe('openai');
    expect(names(body.tools)).toEqual(exposed);
    const validate = ajv.compile(OPENAI_FUNCTION_TOOL);
    for (const tool of body.tools) {
      expect(validate(tool)).toBe(true);
      expect(tool.function.parameters).toEqual(await storedInputSchema(tool.function.name));
      const problems = openAiStrictProblems(tool.function.parameters);
      if (tool.function.strict) expect(problems).toEqual([]);
      else expect(problems.length).toBeGreaterThan(0);
    }
    const strict = Object.fromEntries(body.tools.map((tool: any) => [tool.function.name, tool.function.strict]));
    expect(strict).toEqual({ echo_text: false, firmware_strict: true, quick_noop: false, sleepy: false, thermal_phase2: false });
    const reasons = Object.fromEntries(body.non_strict.map((entry: any) => [entry.name, entry.reasons.join('; ')]));
    expect(Object.keys(reasons).sort()).toEqual(['echo_text', 'quick_noop', 'sleepy', 'thermal_phase2']);
    expect(reasons.echo_text).toContain("keyword 'minLength' is not supported");
    expect(reasons.quick_noop).toContain('additionalProperties must be false');
  });

  it('format=anthropic: tools with input_schema that the Messages API accepts, schemas unchanged', async () => {
    const { status, body } = await get('?format=anthropic');
    expect(status).toBe(200);
    expect(names(body.tools)).toEqual(exposed);
    const validate = ajv.compile(ANTHROPIC_TOOL);
    for (const tool of body.tools) {
      expect(validate(tool)).toBe(true);
      expect(tool.input_schema).toEqual(await storedInputSchema(tool.name));
    }
  });

  it('format=mcp: MCP Tool objects, the same ones the MCP endpoint lists', async () => {
    const { status, body } = await get('?format=mcp');
    expect(status).toBe(200);
    expect(names(body.tools)).toEqual(exposed);
    const validate = ajv.compile(MCP_TOOL);
    for (const tool of body.tools) {
      expect(validate(tool)).toBe(true);
      expect(isSpecType.Tool(tool)).toBe(true);
    }
    expect(body.tools.find((tool: any) => tool.name === 'firmware_strict').annotations).toEqual({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: false,
    });

    const client = new Client({ name: 'tool-definitions-e2e', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`), { authProvider: { token: async () => AGENT_TOKEN } }),
    );
    try {
      const { tools } = await client.listTools();
      expect(tools.filter((tool) => exposed.includes(tool.name))).toEqual(body.tools);
    } finally {
      await client.close();
    }
  });

  it('marks DEPRECATED skills in the description in every format, and leaves out skills that are not ACTIVE/DEPRECATED', async () => {
    for (const format of ['openai', 'anthropic', 'mcp']) {
      const { body } = await get(`?format=${format}`);
      const sleepy = body.tools.find((tool: any) => (tool.name ?? tool.function.name) === 'sleepy');
      const description: string = sleepy.description ?? sleepy.function.description;
      expect(description).toContain('DEPRECATED: too slow');
      expect(description).toContain("use 'quick_noop' instead");
      expect(names(body.tools)).not.toContain('never_promoted');
    }
  });

  it('filters by domain, agent, phase and tag', async () => {
    expect(names((await get('?format=anthropic&domain=firmware')).body.tools)).toEqual(['firmware_strict']);
    expect(names((await get('?format=anthropic&agent=embedded')).body.tools)).toEqual(['firmware_strict']);
    expect(names((await get('?format=anthropic&phase=1')).body.tools)).toEqual(exposed.filter((name) => name !== 'thermal_phase2'));
    expect(names((await get('?format=anthropic&tag=echo')).body.tools)).toEqual(['echo_text', 'firmware_strict']);
    expect(names((await get('?format=anthropic&tag=echo&tag=firmware')).body.tools)).toEqual(['firmware_strict']);
    expect(names((await get('?format=anthropic&domain=nowhere')).body.tools)).toEqual([]);
  });

  it('answers bad parameters with a 400 problem naming them, and needs a token when AGENT_TOKENS is set', async () => {
    for (const [query, field] of [
      ['?format=langchain', 'format'],
      ['', 'format'],
      ['?format=mcp&phase=7', 'phase'],
      ['?format=mcp&colour=red', 'colour'],
    ] as const) {
      const { status, body, headers } = await get(query);
      expect(status).toBe(400);
      expect(headers.get('content-type')).toContain('application/problem+json');
      expect(body.code).toBe('VALIDATION_FAILED');
      expect(body.errors.map((error: { field: string }) => error.field)).toContain(field);
    }
    expect((await get('?format=mcp', null)).status).toBe(401);
  });
});
