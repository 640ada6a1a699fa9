import type { McpBridge, SkillContext, SkillLogger, ToolDescriptor, ToolInvokeOptions, TwinApi } from './context.js';
import { McpToolError } from './errors.js';
import { createFakeTwin, type FakeTwin } from './fake-twin.js';

export {
  createFakeTwin,
  type FakeBranchSeed,
  type FakeTwin,
  type FakeTwinOptions,
  type FakeWorkProductSeed,
  type TwinAccess,
} from './fake-twin.js';

/** A scripted tool for tests: a fixed result, or a function of the params. */
export type FakeTool =
  | Record<string, unknown>
  | ((params: Record<string, unknown>, options?: ToolInvokeOptions) => Promise<Record<string, unknown>> | Record<string, unknown>);

/** One recorded call of the fake bridge. */
export interface RecordedToolCall {
  toolId: string;
  params: Record<string, unknown>;
}

/** A context for unit tests of a skill handler, with a scripted MCP bridge, a fake twin and a silent logger. */
export interface TestSkillContext<Twin extends TwinApi = FakeTwin> extends SkillContext {
  /** The twin given (a fake twin: its view whose calls default to the context's branch), else an empty fake twin. */
  readonly twin: Twin;
  /** Every tool call the handler made, in order. */
  readonly toolCalls: RecordedToolCall[];
  /** Every line the handler logged. */
  readonly logLines: { level: string; message: string; fields: Record<string, unknown> }[];
}

/** Options of createTestContext. */
export interface TestContextOptions<Twin extends TwinApi = FakeTwin> {
  /** Scripted tools by tool id; tools not listed are unavailable. */
  tools?: Record<string, FakeTool>;
  /** Tools listed in `tools` that report themselves unavailable. */
  unavailable?: string[];
  /** Tools switched off as by `TOOLS_DISABLED`: a call answers `{ disabled: true, reason }`, as in the executor. */
  disabled?: string[];
  sessionId?: string;
  /** The execution's branch (default `main`); twin calls that name no branch use it, as in the executor. */
  branch?: string;
  signal?: AbortSignal;
  /** The digital twin, e.g. `createFakeTwin({ workProducts: [...] })` (default: an empty fake twin). */
  twin?: Twin;
}

/** Build a SkillContext whose bridge answers from `tools` and whose twin is `twin` (default an empty fake). */
export function createTestContext<Twin extends TwinApi = FakeTwin>(options: TestContextOptions<Twin> = {}): TestSkillContext<Twin> {
  const tools = options.tools ?? {};
  const disabled = new Set(options.disabled ?? []);
  const unavailable = new Set([...(options.unavailable ?? []), ...disabled]);
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
      if (disabled.has(toolId)) return { disabled: true, reason: `tool '${toolId}' is disabled by TOOLS_DISABLED` };
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

  const branch = options.branch ?? 'main';
  const twin = options.twin ?? createFakeTwin({ branches: branch === 'main' ? [] : [branch] });
  return {
    mcp,
    twin: (isFakeTwin(twin) ? twin.forBranch(branch) : twin) as Twin,
    logger: makeLogger({ executionId: 'test-execution' }),
    executionId: 'test-execution',
    sessionId: options.sessionId ?? null,
    branch,
    signal: options.signal ?? new AbortController().signal,
    toolCalls,
    logLines,
  };
}

function isFakeTwin(twin: TwinApi): twin is FakeTwin {
  return typeof (twin as Partial<FakeTwin>).forBranch === 'function';
}
