import { McpToolError, type McpBridge } from '@skill-registry/sdk';

/** The bridge used when no tool adapters are configured (TOOL_ADAPTERS empty): every tool is unavailable. */
export const NO_TOOLS_BRIDGE: McpBridge = {
  async invoke(toolId) {
    throw new McpToolError(toolId, 'no tool adapters are configured (TOOL_ADAPTERS is empty)');
  },
  async isAvailable() {
    return false;
  },
  async listTools() {
    return [];
  },
};
