import type { Principal } from '../auth/principal.js';
import type { ToolFilter } from '../tool-definitions/exposed-skills.js';
import type { TraceContext } from '#observability/index.js';

/** Who is connected to the MCP endpoint and which skills the connection shows (fixed when it opens). */
export interface McpConnection {
  principal: Principal;
  filter: ToolFilter;
  /** The MCP session (2025-era Streamable HTTP); recorded as the session of the executions it starts. */
  sessionId?: string;
  /** The twin branch tool calls work on unless a call names another (`/mcp?branch=`); default main. */
  branch?: string;
  /** The trace context of the HTTP request that carried the message. */
  traceContext?: TraceContext;
}
