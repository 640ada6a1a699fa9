export { BridgeConfigError, parseDisabledTools, parseToolAdapters, splitToolId } from './config.js';
export type { ToolAdapterMap } from './config.js';
export { ToolDisabledError } from './errors.js';
export { McpBridgeClient } from './mcp-bridge-client.js';
export type { AdapterStatus, BridgeInvokeOptions, BridgeToolDescriptor, McpBridgeClientOptions } from './mcp-bridge-client.js';
export { ExecutionBridgeView } from './execution-view.js';
export type { ExecutionViewOptions, ToolCallEvent, ToolCallListener } from './execution-view.js';
export { silentLogger } from './logger.js';
export type { BridgeLogger } from './logger.js';
