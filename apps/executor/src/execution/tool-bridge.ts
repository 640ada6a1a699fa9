import type { McpBridge } from '@skill-registry/sdk';
import type { ExecutorConfig } from '../config/executor-config.js';
import { NO_TOOLS_BRIDGE } from './no-tools-bridge.js';

/** The MCP bridge the executor hands to skills, from TOOL_ADAPTERS. */
export function createToolBridge(config: ExecutorConfig): McpBridge {
  if (!config.TOOL_ADAPTERS.trim()) return NO_TOOLS_BRIDGE;
  return NO_TOOLS_BRIDGE;
}
