import { z } from 'zod';
import { SKILL_SCOPES } from '#contracts/index.js';
import { apiComponent } from '../openapi/openapi-components.js';
import { isoDateTime, jsonObject, jsonSchemaDocument } from '../openapi/wire-types.js';

/** The wire views of what an Agent Skills package's sidecars give its version (seed 004), and seed 004's skill summary. */

const runtimeState = z.enum(['available', 'degraded', 'missing']);

export const promptView = apiComponent(
  'SkillPrompt',
  z.object({
    name: z.string(),
    qualified_name: z.string().describe('`<skill>__<prompt>`, the MCP prompt name'),
    title: z.string().nullable(),
    description: z.string(),
    arguments: z.array(z.object({ name: z.string(), description: z.string().nullable(), required: z.boolean() })),
    template: z.string().describe('Text with `{{argument}}` placeholders, filled in by MCP prompts/get'),
  }),
  'A prompt template of an Agent Skills package (metadata.dcc-mcp.prompts), served as an MCP prompt',
);

export const resourceView = apiComponent(
  'SkillResource',
  z.object({
    uri: z.string().describe('The MCP resource URI, under a scheme of the author'),
    name: z.string(),
    title: z.string().nullable(),
    description: z.string().nullable(),
    mime_type: z.string(),
    path: z.string().describe('The package file resources/read returns'),
    size: z.number().int(),
  }),
  'A static resource of an Agent Skills package (metadata.dcc-mcp.resources), served over MCP resources/list and resources/read',
);

export const workflowView = apiComponent(
  'SkillWorkflow',
  z.object({
    name: z.string().describe('What an execution names as `tool` to run it'),
    qualified_name: z.string(),
    description: z.string(),
    input_schema: jsonSchemaDocument,
    steps: z.array(
      z.object({
        id: z.string(),
        tool: z.string().describe("One of the package's tools"),
        args: jsonObject.describe('Arguments, with `{{inputs.x}}` and `{{steps.<id>.output.y}}` references'),
      }),
    ),
    timeout_seconds: z.number().int(),
    idempotent: z.boolean(),
    retries: z.number().int(),
    not_executable_reason: z.string().nullable(),
  }),
  'A workflow of an Agent Skills package (metadata.dcc-mcp.workflows): its tools in order, run as one execution',
);

export const runtimeView = apiComponent(
  'SkillRuntime',
  z.object({
    name: z.string(),
    type: z.enum(['env_var', 'binary', 'python_package']),
    target: z.string().describe('The variable, program or Python module looked for'),
    package: z.string().nullable(),
    optional: z.boolean(),
    feature_level: z.string().nullable(),
    hint: z.string().nullable(),
    state: runtimeState,
  }),
  'A runtime an Agent Skills package declares (metadata.dcc-mcp.runtimes), with what the probe at registration found',
);

const runtimeSummaryView = apiComponent(
  'RuntimeSummary',
  z.object({
    state: runtimeState.describe('missing when a required runtime is, else degraded when an optional one is, else available'),
    probed_at: isoDateTime,
    available: z.array(z.string()),
    degraded: z.array(z.string()),
    missing: z.array(z.string()),
  }),
  "A skill's runtime state (seed 004), probed at registration where script tools run",
);

/** Seed 004's SkillSummary fields, on search hits and skill views alike. */
export const skillSummaryFields = {
  tool_count: z.number().int().describe('Tools the skill offers (a TypeScript skill is one)'),
  tool_names: z.array(z.string()).describe('Their names (a TypeScript skill: its own name)'),
  dcc: z.string().nullable().describe('Target DCC of an Agent Skills package (default python); null for a TypeScript skill'),
  layer: z.string().nullable().describe("Seed 004's discovery layer"),
  scope: z.enum(SKILL_SCOPES).describe('Trust scope: admin (published by an admin), system (found under SKILL_PATHS), user (a publisher)'),
  implicit_invocation: z.boolean().describe('metadata.dcc-mcp.allow-implicit-invocation (default true)'),
  runtime: runtimeSummaryView.nullable().describe('Null when the skill declares no runtimes'),
};
