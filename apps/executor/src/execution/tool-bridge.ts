import { Logger } from '@nestjs/common';
import type { McpBridge } from '@skill-registry/sdk';
import { McpBridgeClient, NO_TOOLS_BRIDGE, parseDisabledTools, parseFeatureFlags, parseToolAdapters } from '#mcp-bridge/index.js';
import type { ExecutorConfig } from '../config/executor-config.js';

/** The MCP bridge the executor hands to skills, built from TOOL_ADAPTERS, TOOLS_DISABLED and FEATURE_FLAGS. */
export function createToolBridge(config: ExecutorConfig): McpBridge & { close?: () => Promise<void> } {
  const adapters = parseToolAdapters(config.TOOL_ADAPTERS);
  if (adapters.size === 0) return NO_TOOLS_BRIDGE;
  const logger = new Logger('McpBridge');
  return new McpBridgeClient({
    adapters,
    disabledTools: parseDisabledTools(config.TOOLS_DISABLED),
    featureFlags: parseFeatureFlags(config.FEATURE_FLAGS),
    logger: {
      debug: (message, fields) => logger.debug(withFields(message, fields)),
      info: (message, fields) => logger.log(withFields(message, fields)),
      warn: (message, fields) => logger.warn(withFields(message, fields)),
      error: (message, fields) => logger.error(withFields(message, fields)),
    },
  });
}

function withFields(message: string, fields: Record<string, unknown> | undefined): string {
  return fields && Object.keys(fields).length ? `${message} ${JSON.stringify(fields)}` : message;
}
