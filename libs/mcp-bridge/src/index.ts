export { parseDisabledTools, parseFeatureFlags, parseToolAdapters } from './config.js';
export { McpBridgeClient } from './mcp-bridge-client.js';
export type { AdapterStatus, BridgeToolDescriptor, ToolDeclaration } from './mcp-bridge-client.js';
export type { AdapterListing } from './adapter-connection.js';
export { ExecutionBridgeView } from './execution-view.js';
export type { ToolCallEvent } from './execution-view.js';
export { silentLogger } from './logger.js';
export { NO_TOOLS_BRIDGE } from './no-tools-bridge.js';
export { missingTools } from './required-tools.js';
