import { SpanKind, extractTraceContext, inSpan, traceparentOf } from '#observability/tracing.js';
import { isDisabledTool, type McpBridge, type ToolDescriptor, type ToolInvokeOptions } from '@skill-registry/sdk';
import { describeError } from './adapter-connection.js';
import type { BridgeLogger } from './logger.js';

/** One tool call as the execution sees it: `tool_invoked` when it starts, `tool_completed` when it ends. */
export interface ToolCallEvent {
  type: 'tool_invoked' | 'tool_completed';
  toolId: string;
  /** ISO time of the event. */
  at: string;
  /** Wall time of the call (tool_completed only). */
  durationMs?: number;
  /** Whether the call returned a result (tool_completed only). */
  ok?: boolean;
  /** The tool is switched off (TOOLS_DISABLED): the result was `{ disabled: true, reason }` (tool_completed only). */
  disabled?: true;
  /** Why it failed: the SkillError code (TOOL_ERROR, TOOL_TIMEOUT, PRECONDITION_FAILED) and message. */
  error?: { code: string; message: string };
}

export type ToolCallListener = (event: ToolCallEvent) => void;

export interface ExecutionViewOptions {
  /** Signal used by calls that pass none (typically the execution's). */
  signal?: AbortSignal;
  /** Skill on whose behalf calls are made; named in precondition errors. */
  skillName?: string;
  /** The W3C `traceparent` of the execution's attempt: each call is a child span, continued by the adapter. */
  traceParent?: string | null;
}

/** The part of the bridge a view needs. */
interface InvokingBridge extends McpBridge {
  invoke(
    toolId: string,
    params: Record<string, unknown>,
    options?: ToolInvokeOptions & { skillName?: string; meta?: Record<string, unknown> },
  ): Promise<Record<string, unknown>>;
}

/** A bridge that reports each call of one execution to a listener; a failing listener never breaks the call. */
export class ExecutionBridgeView implements McpBridge {
  constructor(
    private readonly bridge: InvokingBridge,
    private readonly listener: ToolCallListener,
    private readonly options: ExecutionViewOptions,
    private readonly logger: BridgeLogger,
  ) {}

  async invoke(toolId: string, params: Record<string, unknown>, options: ToolInvokeOptions = {}): Promise<Record<string, unknown>> {
    const signal = combineSignals(options.signal, this.options.signal);
    const started = performance.now();
    this.emit({ type: 'tool_invoked', toolId, at: new Date().toISOString() });
    try {
      const parent = extractTraceContext({ traceparent: this.options.traceParent ?? undefined });
      const result = await inSpan(
        `tool.call ${toolId}`,
        parent,
        { kind: SpanKind.CLIENT, attributes: { 'mcp.tool': toolId } },
        (_span, call) =>
          this.bridge.invoke(toolId, params, {
            timeoutMs: options.timeoutMs,
            signal,
            skillName: this.options.skillName,
            meta: { traceparent: traceparentOf(call) ?? undefined },
          }),
      );
      this.emit({
        type: 'tool_completed',
        toolId,
        at: new Date().toISOString(),
        durationMs: elapsed(started),
        ok: true,
        ...(isDisabledTool(result) ? { disabled: true as const } : {}),
      });
      return result;
    } catch (error) {
      const code = typeof (error as { code?: unknown }).code === 'string' ? (error as { code: string }).code : 'TOOL_ERROR';
      this.emit({
        type: 'tool_completed',
        toolId,
        at: new Date().toISOString(),
        durationMs: elapsed(started),
        ok: false,
        error: { code, message: describeError(error) },
      });
      throw error;
    }
  }

  isAvailable(toolId: string): Promise<boolean> {
    return this.bridge.isAvailable(toolId);
  }

  listTools(capability?: string): Promise<ToolDescriptor[]> {
    return this.bridge.listTools(capability);
  }

  private emit(event: ToolCallEvent): void {
    try {
      this.listener(event);
    } catch (error) {
      this.logger.warn('tool call listener failed', { toolId: event.toolId, type: event.type, reason: describeError(error) });
    }
  }
}

function combineSignals(own: AbortSignal | undefined, fallback: AbortSignal | undefined): AbortSignal | undefined {
  if (own && fallback && own !== fallback) return AbortSignal.any([own, fallback]);
  return own ?? fallback;
}

function elapsed(started: number): number {
  return Math.round((performance.now() - started) * 1000) / 1000;
}
