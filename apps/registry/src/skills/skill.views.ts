import { z } from 'zod';
import { SKILL_STATUSES } from '#contracts/index.js';
import { COMPATIBILITY_POLICIES, ISSUE_CATEGORIES } from '#skill-loader/index.js';
import { apiComponent } from '../openapi/openapi-components.js';
import { isoDateTime, jsonObject, jsonSchemaDocument, nextCursor } from '../openapi/wire-types.js';
import { promptView, resourceView, runtimeView, skillSummaryFields, workflowView } from './skill-sidecar.views.js';

/** The wire views of skills (skill.presenter.ts returns exactly these; the OpenAPI components are generated from them). */

export const skillStatus = apiComponent('SkillStatus', z.enum(SKILL_STATUSES), 'Lifecycle state of a skill version');

const toolRefView = apiComponent(
  'ToolRef',
  z.object({
    tool_id: z.string().describe('`<adapter>.<method>`, e.g. `calculix.run_fea`'),
    capability: z.string(),
    required: z.boolean(),
  }),
  'An MCP tool a skill needs, as declared in definition.json',
);

const exampleTwinFixture = z.object({
  work_products: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      name: z.string(),
      media_type: z.string(),
      content: z.string().optional(),
      content_file: z.string().optional(),
      metadata: jsonObject.optional(),
      constraints: z.array(z.looseObject({ kind: z.string() })).optional(),
    }),
  ),
});

const skillExampleView = apiComponent(
  'SkillExample',
  z.object({
    input: jsonObject,
    output: jsonObject.optional(),
    description: z.string().optional(),
    twin: exampleTwinFixture.optional().describe('Work products that must exist on the branch the example runs on'),
  }),
  'A declared example: an input the skill accepts and, optionally, the output it gives',
);

export const skillDependencyView = apiComponent(
  'SkillDependency',
  z.object({ name: z.string(), range: z.string().describe('A semver range; `*` for any') }),
  'Another skill this one calls, with the versions it works with',
);

export const validationIssueView = apiComponent(
  'ValidationIssue',
  z.object({
    severity: z.enum(['error', 'warning', 'info']),
    category: z.enum(ISSUE_CATEGORIES),
    file: z.string(),
    path: z.string(),
    message: z.string(),
    hint: z.string(),
  }),
  'One finding about a skill package',
);

const storedToolView = apiComponent(
  'SkillTool',
  z.object({
    name: z.string(),
    qualified_name: z.string().describe('`<skill>__<tool>`, the MCP tool name'),
    description: z.string(),
    input_schema: jsonSchemaDocument,
    output_schema: jsonSchemaDocument.nullable(),
    read_only: z.boolean(),
    destructive: z.boolean(),
    idempotent: z.boolean(),
    timeout_seconds: z.number(),
    retries: z.number().int(),
    search_aliases: z.array(z.string()),
    next_tools: z.object({ on_success: z.array(z.string()), on_failure: z.array(z.string()) }),
    annotations: jsonObject,
    examples: z.array(z.object({ input: jsonObject, output: jsonObject.optional(), description: z.string().optional() })),
    script: z.object({ path: z.string(), interpreter: z.enum(['python3', 'bash', 'node']) }).nullable(),
    not_executable_reason: z.string().nullable(),
    defer_loading: z.boolean().optional().describe("Seed 004's defer-loading: listed by name until loaded (progressive exposure)"),
  }),
  'One tool of an Agent Skills package: the contract an execution of it runs under',
);

const agentSkillView = apiComponent(
  'AgentSkillFrontmatter',
  z.object({
    name: z.string().describe('The Agent Skills (kebab-case) name'),
    license: z.string().nullable(),
    compatibility: z.string().nullable(),
    allowed_tools: z.array(z.string()),
    metadata: jsonObject,
    metadata_strings: z.record(z.string(), z.string()),
    search_hint: z.string().nullable(),
    search_aliases: z.array(z.string()),
    layer: z.string().nullable(),
    instruction_only: z.boolean(),
    version_defaulted: z.boolean(),
    dcc: z.string().optional().describe('metadata.dcc-mcp.dcc (default python)'),
    products: z.array(z.string()).optional().describe('metadata.dcc-mcp.products: further DCCs the dcc search filter matches'),
    implicit_invocation: z.boolean().optional().describe('metadata.dcc-mcp.allow-implicit-invocation (default true)'),
    external_deps: jsonObject.nullable().optional().describe('metadata.dcc-mcp.external-deps as declared (not installed or probed)'),
  }),
  "An Agent Skills package's SKILL.md frontmatter as stored",
);

export const deprecationView = apiComponent(
  'Deprecation',
  z.object({
    reason: z.string().nullable(),
    since: isoDateTime.nullable(),
    successor: z.string().nullable().describe('`name` or `name@version`'),
    sunset: isoDateTime.nullable(),
  }),
  'Why and since when a version is DEPRECATED, what replaces it and when it stops working',
);

export const skillVersionView = apiComponent(
  'SkillVersion',
  z.object({
    name: z.string(),
    version: z.string(),
    status: skillStatus,
    status_reason: z.string().nullable(),
    status_changed_at: isoDateTime,
    domain: z.string(),
    agent: z.string(),
    description: z.string(),
    phase: z.number().int(),
    tools_required: z.array(toolRefView),
    input_schema: jsonSchemaDocument.nullable(),
    output_schema: jsonSchemaDocument.nullable(),
    input_schema_ref: z.string(),
    output_schema_ref: z.string(),
    timeout_seconds: z.number(),
    retries: z.number().int(),
    max_retries_per_gate: z
      .number()
      .int()
      .describe('Re-asks of a result that fails output validation, within one attempt (seed 001 §2.3; idempotent skills only)'),
    idempotent: z.boolean(),
    read_only: z.boolean(),
    tags: z.array(z.string()),
    examples: z.array(skillExampleView),
    content_hash: z.string(),
    depends_on: z.array(skillDependencyView),
    pending_dependencies: z.array(skillDependencyView).describe('Dependencies no registered version satisfies yet'),
    compatibility: z.enum(COMPATIBILITY_POLICIES),
    format: z.enum(['typescript', 'agent-skills']),
    tools: z.array(storedToolView),
    agent_skill: agentSkillView.nullable(),
    prompts: z.array(promptView),
    resources: z.array(resourceView),
    workflows: z.array(workflowView),
    runtimes: z.array(runtimeView),
    ...skillSummaryFields,
    validation: z.array(validationIssueView),
    deprecation: deprecationView.nullable(),
    created_at: isoDateTime,
    updated_at: isoDateTime,
  }),
  'One version of a skill: every definition field, the JSON Schemas, status, content hash and validation report',
);

const versionSummaryView = apiComponent('SkillVersionSummary', z.object({ version: z.string(), status: skillStatus }));

const requiredToolStatusView = apiComponent(
  'RequiredToolStatus',
  z.object({
    tool_id: z.string(),
    capability: z.string(),
    required: z.boolean(),
    available: z.boolean(),
    disabled: z
      .boolean()
      .describe('Switched off by the operator (TOOLS_DISABLED): the skill still runs, and a call answers { disabled: true, reason }'),
    reason: z.string().nullable(),
  }),
  'Whether a tool the skill requires can be called right now',
);

export const skillView = apiComponent(
  'Skill',
  skillVersionView.extend({
    versions: z.array(versionSummaryView),
    tools_status: z.array(requiredToolStatusView).optional().describe('Only for skills that require tools'),
  }),
  'A skill by its current version (highest ACTIVE/DEPRECATED, else highest live, else highest), with every version',
);

const skillListItemView = apiComponent(
  'SkillListItem',
  z.object({
    name: z.string(),
    version: z.string(),
    status: skillStatus,
    domain: z.string(),
    agent: z.string(),
    description: z.string(),
    phase: z.number().int(),
    tags: z.array(z.string()),
    tools_required: z.array(toolRefView),
    idempotent: z.boolean(),
    pending_dependencies: z.array(skillDependencyView),
    deprecation: deprecationView.nullable(),
    versions: z.array(versionSummaryView),
  }),
);

export const skillListView = apiComponent('SkillList', z.object({ items: z.array(skillListItemView), next_cursor: nextCursor }));

export const skillVersionListView = apiComponent('SkillVersionList', z.object({ items: z.array(skillVersionView) }));

const lifecycleEventView = apiComponent(
  'LifecycleEvent',
  z.object({
    version: z.string(),
    from: skillStatus.nullable(),
    to: skillStatus,
    actor: z.string(),
    reason: z.string().nullable(),
    forced: z.boolean(),
    evidence: jsonObject,
    at: isoDateTime,
  }),
);

export const lifecycleHistoryView = apiComponent('LifecycleHistory', z.object({ items: z.array(lifecycleEventView) }));

export type SkillVersionView = z.input<typeof skillVersionView>;
export type DeprecationView = z.input<typeof deprecationView>;
export type SkillView = z.input<typeof skillView>;
export type SkillListItemView = z.input<typeof skillListItemView>;
export type LifecycleEventView = z.input<typeof lifecycleEventView>;
export type SkillSummaryView = Pick<SkillVersionView, keyof typeof skillSummaryFields>;
