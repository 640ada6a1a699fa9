import type { Principal } from '../auth/principal.js';
import type { ToolFilter } from '../tool-definitions/exposed-skills.js';
import type { TraceContext } from '#observability/index.js';
import type { LoadedSkills } from './loaded-skills.js';

/** What the HTTP edge knows of an MCP request: who sent it and which skills the endpoint's query shows. */
export interface McpRequestContext {
  principal: Principal;
  filter: ToolFilter;
  /** The twin branch tool calls work on unless a call names another (`/mcp?branch=`); default main. */
  branch?: string;
  /** The trace context of the HTTP request that carried the message. */
  traceContext?: TraceContext;
  /** The network address of the HTTP request that opened the connection (see callerKey). */
  address?: string;
}

/** Who is connected to the MCP endpoint and which skills the connection shows (fixed when it opens). */
export interface McpConnection extends McpRequestContext {
  /** `legacy`: a 2025-era session (lives across requests); `modern`: one 2026-07-28 request. */
  era: 'legacy' | 'modern';
  /**
   * What tools/list shows and what the connection has loaded (progressive exposure). A session keeps
   * it; a 2026-07-28 request starts from an empty one and reads its loaded skills from its `_meta`.
   */
  tools: LoadedSkills;
  /** The MCP session (2025-era Streamable HTTP); recorded as the session of the executions it starts. */
  sessionId?: string;
}
