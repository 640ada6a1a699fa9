import type { McpBridge } from '@skill-registry/sdk';
import type { ExecutionEvent } from '../../../../libs/executions/src/index.js';

/** A view of `bridge` that reports every tool call of one execution as tool_invoked/tool_completed events. */
export function withToolEvents(bridge: McpBridge, emit: (event: ExecutionEvent) => void): McpBridge {
  return {
    async invoke(toolId, params, options) {
      emit({ type: 'tool_invoked', at: new Date().toISOString(), tool_id: toolId });
      const started = performance.now();
      try {
        const result = await bridge.invoke(toolId, params, options);
        emit({
          type: 'tool_completed',
          at: new Date().toISOString(),
          tool_id: toolId,
          duration_ms: Math.round(performance.now() - started),
          ok: true,
        });
        return result;
      } catch (error) {
        const typed = error as { code?: string; message?: string };
        emit({
          type: 'tool_completed',
          at: new Date().toISOString(),
          tool_id: toolId,
          duration_ms: Math.round(performance.now() - started),
          ok: false,
          error: { code: typed.code ?? 'TOOL_ERROR', message: typed.message ?? String(error) },
        });
        throw error;
      }
    },
    isAvailable: (toolId) => bridge.isAvailable(toolId),
    listTools: (capability) => bridge.listTools(capability),
  };
}
