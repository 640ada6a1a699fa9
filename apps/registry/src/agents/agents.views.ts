import { z } from 'zod';
import { apiComponent } from '../openapi/openapi-components.js';

/** The wire view of an A2A v1.0 AgentCard as the registry serves it (a2a.proto `AgentCard`, protobuf JSON names). */

const agentInterfaceView = z.object({
  url: z.string(),
  protocolBinding: z.string().describe('A URI naming the binding: the MCP revision, or the REST API by its OpenAPI document'),
  protocolVersion: z.string(),
});

const agentSkillView = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string(),
  tags: z.array(z.string()),
  examples: z.array(z.string()).optional(),
  inputModes: z.array(z.string()).optional(),
  outputModes: z.array(z.string()).optional(),
});

export const agentCardView = apiComponent(
  'AgentCard',
  z.looseObject({
    name: z.string(),
    description: z.string(),
    supportedInterfaces: z.array(agentInterfaceView).min(1),
    provider: z.object({ organization: z.string(), url: z.string() }).optional(),
    version: z.string(),
    documentationUrl: z.string().optional(),
    capabilities: z.looseObject({}),
    securitySchemes: z.record(z.string(), z.looseObject({})).optional(),
    securityRequirements: z.array(z.looseObject({})).optional(),
    defaultInputModes: z.array(z.string()),
    defaultOutputModes: z.array(z.string()),
    skills: z.array(agentSkillView),
    signatures: z.array(z.looseObject({ protected: z.string(), signature: z.string() })).optional(),
  }),
  'An A2A v1.0 agent card (https://a2a-protocol.org), signed when the registry has a signing key',
);
