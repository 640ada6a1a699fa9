import type { McpBridge, SkillContext, SkillLogger, ToolDescriptor, ToolInvokeOptions } from './context.js';
import { McpToolError } from './errors.js';

/** A scripted tool for tests: a fixed result, or a function of the params. */
export type FakeTool =
  | Record<string, unknown>
  | ((params: Record<string, unknown>, options?: ToolInvokeOptions) => Promise<Record<string, unknown>> | Record<string, unknown>);

/** One recorded call of the fake bridge. */
export interface RecordedToolCall {
  toolId: string;
  params: Record<string, unknown>;
}

/** A context for unit tests of a skill handler, with a scripted MCP bridge and a silent logger. */
export interface TestSkillContext extends SkillContext {
  /** Every tool call the handler made, in order. */
  readonly toolCalls: RecordedToolCall[];
  /** Every line the handler logged. */
  readonly logLines: { level: string; message: string; fields: Record<string, unknown> }[];
}

/** Build a SkillContext whose bridge answers from `tools`; tools not listed are unavailable. */
export function createTestContext(
  options: { tools?: Record<string, FakeTool>; unavailable?: string[]; sessionId?: string; branch?: string; signal?: AbortSignal } = {},
): TestSkillContext {
  const tools = options.tools ?? {};
  const unavailable = new Set(options.unavailable ?? []);
  const toolCalls: RecordedToolCall[] = [];
  const logLines: TestSkillContext['logLines'] = [];

  const makeLogger = (bindings: Record<string, unknown>): SkillLogger => {
    const log =
      (level: string) =>
      (message: string, fields: Record<string, unknown> = {}) => {
        logLines.push({ level, message, fields: { ...bindings, ...fields } });
      };
    return {
      debug: log('debug'),
      info: log('info'),
      warn: log('warn'),
      error: log('error'),
      child: (more) => makeLogger({ ...bindings, ...more }),
    };
  };

  const mcp: McpBridge = {
    async invoke(toolId, params, invokeOptions) {
      toolCalls.push({ toolId, params });
      const tool = tools[toolId];
      if (tool === undefined || unavailable.has(toolId)) throw new McpToolError(toolId, 'tool is not available');
      return typeof tool === 'function' ? await tool(params, invokeOptions) : structuredClone(tool);
    },
    async isAvailable(toolId) {
      return toolId in tools && !unavailable.has(toolId);
    },
    async listTools(capability?: string): Promise<ToolDescriptor[]> {
      return Object.keys(tools).map((toolId) => ({
        toolId,
        capability: capability ?? null,
        description: 'fake tool',
        available: !unavailable.has(toolId),
        inputSchema: { type: 'object' },
      }));
    },
  };

  return {
    mcp,
    logger: makeLogger({ executionId: 'test-execution' }),
    executionId: 'test-execution',
    sessionId: options.sessionId ?? null,
    branch: options.branch ?? 'main',
    signal: options.signal ?? new AbortController().signal,
    toolCalls,
    logLines,
  };
}
