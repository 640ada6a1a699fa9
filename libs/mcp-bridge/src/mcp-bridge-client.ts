import { McpTimeoutError, McpToolError, SkillError } from '@skill-registry/sdk';
import type { DisabledToolResult, McpBridge, ToolDescriptor, ToolInvokeOptions } from '@skill-registry/sdk';
import { ProtocolError, SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import type { Tool } from '@modelcontextprotocol/client';
import { AdapterConnection, describeError, type AdapterListing } from './adapter-connection.js';
import { BridgeConfigError, parseDisabledTools, parseFeatureFlags, parseToolAdapters, splitToolId } from './config.js';
import { ExecutionBridgeView } from './execution-view.js';
import type { ExecutionViewOptions, ToolCallListener } from './execution-view.js';
import { silentLogger } from './logger.js';
import type { BridgeLogger } from './logger.js';
import { isPlainObject, toolResultToRecord } from './tool-result.js';

export interface McpBridgeClientOptions {
  /** Adapter name → MCP endpoint (Streamable HTTP), e.g. from `parseToolAdapters(process.env.TOOL_ADAPTERS)`. */
  adapters: ReadonlyMap<string, URL | string>;
  /** Tool ids the operator switched off (`TOOLS_DISABLED`). */
  disabledTools?: Iterable<string>;
  /**
   * Feature flags this platform enables (`FEATURE_FLAGS`): a tool whose adapter declares
   * `_meta.requiresFeatureFlag` is disabled unless its flag is among them (seed 001 §3.3).
   */
  featureFlags?: Iterable<string>;
  /** How long a `tools/list` answer is trusted before asking the adapter again. Default 5000 ms. */
  availabilityTtlMs?: number;
  /** Timeout of a tool call that names none. Default 120000 ms. */
  defaultTimeoutMs?: number;
  /** Upper bound for connecting to an adapter and for listing its tools. Default 5000 ms. */
  connectTimeoutMs?: number;
  logger?: BridgeLogger;
  /** How the bridge introduces itself to adapters. */
  clientInfo?: { name: string; version: string };
}

/** Invoke options of the bridge: the SDK's, plus the skill on whose behalf the call is made (for error messages). */
export interface BridgeInvokeOptions extends ToolInvokeOptions {
  skillName?: string;
  /** Sent as the call's `_meta` (the W3C `traceparent` of the caller's span). */
  meta?: Record<string, unknown>;
}

/** A tool as the bridge lists it: the SDK's descriptor plus where it lives and why it is unavailable. */
export interface BridgeToolDescriptor extends ToolDescriptor {
  /** Adapter serving the tool (the `<adapter>` of the tool id). */
  adapter: string;
  /** MCP tool name on the adapter (the `<tool>` of the tool id). */
  name: string;
  title: string | null;
  /** Switched off by `TOOLS_DISABLED`. */
  disabled: boolean;
  /** JSON Schema of the tool's structured result, when the adapter declares one. */
  outputSchema: Record<string, unknown> | null;
  /** Seed 001 §3.2's tool fields, as the adapter declares them (`_meta.category`, `_meta.timeoutSeconds`, MCP's `idempotentHint`, `_meta.requiresFeatureFlag`); null when it does not. */
  category: string | null;
  /** Longest one call may run on the adapter, in seconds. */
  timeoutSeconds: number | null;
  /** MCP's `idempotentHint` (false when the adapter does not say, as MCP defines it). */
  idempotent: boolean;
  requiresFeatureFlag: string | null;
  /** Why `available` is false (disabled, adapter unreachable, program not installed); null when available. */
  unavailableReason: string | null;
}

/** Reachability of one configured adapter, for health and diagnostics. */
export interface AdapterStatus {
  adapter: string;
  url: string;
  reachable: boolean;
  toolCount: number;
  checkedAt: string;
  error: string | null;
}

const DEFAULT_TTL_MS = 5_000;
const DEFAULT_TIMEOUT_MS = 120_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;

/**
 * The MCP bridge: reaches tool adapters (MCP servers over Streamable HTTP) with the official MCP client, one
 * connection per adapter, and implements the SDK's `McpBridge` on top of them.
 */
export class McpBridgeClient implements McpBridge {
  private readonly connections = new Map<string, AdapterConnection>();
  private readonly disabled: ReadonlySet<string>;
  private readonly featureFlags: ReadonlySet<string>;
  private readonly defaultTimeoutMs: number;
  private readonly logger: BridgeLogger;
  private closed = false;

  constructor(options: McpBridgeClientOptions) {
    this.logger = options.logger ?? silentLogger;
    this.disabled = new Set(options.disabledTools ?? []);
    this.featureFlags = new Set(options.featureFlags ?? []);
    this.defaultTimeoutMs = positive(options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS, 'defaultTimeoutMs');
    const connectionOptions = {
      availabilityTtlMs: positive(options.availabilityTtlMs, DEFAULT_TTL_MS, 'availabilityTtlMs'),
      connectTimeoutMs: positive(options.connectTimeoutMs, DEFAULT_CONNECT_TIMEOUT_MS, 'connectTimeoutMs'),
      clientInfo: options.clientInfo ?? { name: 'skill-registry-mcp-bridge', version: '0.1.0' },
      logger: this.logger,
    };
    for (const [name, url] of options.adapters) {
      this.connections.set(name, new AdapterConnection(name, url instanceof URL ? url : new URL(url), connectionOptions));
    }
  }

  /**
   * A bridge configured from the environment: `TOOL_ADAPTERS` (required list, may be empty), `TOOLS_DISABLED`,
   * `FEATURE_FLAGS`, `TOOL_AVAILABILITY_TTL_MS`, `TOOL_DEFAULT_TIMEOUT_MS`. Throws BridgeConfigError naming the bad variable.
   */
  static fromEnv(env: Record<string, string | undefined> = process.env, options: Partial<McpBridgeClientOptions> = {}): McpBridgeClient {
    return new McpBridgeClient({
      adapters: parseToolAdapters(env.TOOL_ADAPTERS),
      disabledTools: parseDisabledTools(env.TOOLS_DISABLED),
      featureFlags: parseFeatureFlags(env.FEATURE_FLAGS),
      availabilityTtlMs: envNumber(env, 'TOOL_AVAILABILITY_TTL_MS'),
      defaultTimeoutMs: envNumber(env, 'TOOL_DEFAULT_TIMEOUT_MS'),
      ...options,
    });
  }

  /** Names of the configured adapters. */
  get adapterNames(): string[] {
    return [...this.connections.keys()];
  }

  /**
   * Calls the tool. A disabled one answers `{ disabled: true, reason }` without reaching its adapter (seed
   * 001 §3.3: never raises, the handler decides).
   */
  async invoke(toolId: string, params: Record<string, unknown>, options: BridgeInvokeOptions = {}): Promise<Record<string, unknown>> {
    if (this.disabled.has(toolId)) return disabledResult(toolId);
    const { connection, tool } = this.resolve(toolId);
    // The flag a tool requires is in its listing: read it once before the first call of this adapter.
    if (!connection.knownListing()) await connection.currentListing();
    const flagReason = this.flagReason(toolId);
    if (flagReason) return { disabled: true, reason: flagReason };
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const signal = options.signal;
    if (signal?.aborted) throw new McpTimeoutError(toolId, null);
    const started = Date.now();
    try {
      const result = await connection.callTool(tool, params, { timeoutMs, signal, meta: options.meta });
      return toolResultToRecord(toolId, result);
    } catch (error) {
      throw this.toSkillError(toolId, connection, error, { timeoutMs, signal, elapsedMs: Date.now() - started });
    }
  }

  /**
   * Whether a call of the tool answers `{ disabled: true, reason }`: the operator switched it off
   * (`TOOLS_DISABLED`), or its adapter declares a feature flag that `FEATURE_FLAGS` does not enable
   * (known once the adapter's tools were listed), whatever the adapter's state.
   */
  isDisabled(toolId: string): boolean {
    return this.disabledReason(toolId) !== null;
  }

  /** Why the tool is disabled (see isDisabled); null when it is not. */
  disabledReason(toolId: string): string | null {
    return this.disabled.has(toolId) ? `tool '${toolId}' is disabled by TOOLS_DISABLED` : this.flagReason(toolId);
  }

  private flagReason(toolId: string): string | null {
    const parts = splitToolId(toolId);
    const tool =
      parts &&
      this.connections
        .get(parts.adapter)
        ?.knownListing()
        ?.tools.find((candidate) => candidate.name === parts.tool);
    const flag = tool ? requiredFlag(tool) : null;
    return flag && !this.featureFlags.has(flag)
      ? `tool '${toolId}' requires feature flag '${flag}', which FEATURE_FLAGS does not enable`
      : null;
  }

  async isAvailable(toolId: string): Promise<boolean> {
    if (this.disabled.has(toolId) || this.closed) return false;
    const parts = splitToolId(toolId);
    const connection = parts && this.connections.get(parts.adapter);
    if (!parts || !connection) return false;
    const listing = await connection.currentListing();
    if (!listing.reachable || this.flagReason(toolId)) return false;
    const tool = listing.tools.find((candidate) => candidate.name === parts.tool);
    return tool !== undefined && programAvailable(tool);
  }

  async listTools(capability?: string): Promise<BridgeToolDescriptor[]> {
    const perAdapter = await Promise.all(
      [...this.connections.values()].map(async (connection) => {
        const listing = await connection.currentListing();
        return listing.tools.map((tool) =>
          this.describe(connection.name, tool, listing.reachable ? null : (listing.error ?? 'unreachable')),
        );
      }),
    );
    return perAdapter
      .flat()
      .filter((descriptor) => capability === undefined || descriptor.capability === capability)
      .sort((a, b) => a.toolId.localeCompare(b.toolId));
  }

  /** One tool's descriptor, or null when its adapter is not configured or does not offer it. */
  async getTool(toolId: string): Promise<BridgeToolDescriptor | null> {
    const parts = splitToolId(toolId);
    const connection = parts && this.connections.get(parts.adapter);
    if (!parts || !connection) return null;
    return this.toolIn(connection.name, await connection.currentListing(), parts.tool);
  }

  /**
   * getTool's answer when it needs no waiting (the adapter's listing is fresh, or no adapter offers the
   * id); undefined when it would have to ask the adapter: then call getTool.
   */
  getToolNow(toolId: string): BridgeToolDescriptor | null | undefined {
    const parts = splitToolId(toolId);
    const connection = parts && this.connections.get(parts.adapter);
    if (!parts || !connection) return null;
    const listing = connection.freshListing();
    return listing ? this.toolIn(connection.name, listing, parts.tool) : undefined;
  }

  /**
   * The fresh listing getToolNow would answer `toolId` from: null when no adapter has its name, undefined when its
   * adapter's listing is not fresh. A listing is never changed (a refresh makes a new one), so an answer built from
   * the same listings is the same answer.
   */
  freshListingFor(toolId: string): AdapterListing | null | undefined {
    const parts = splitToolId(toolId);
    const connection = parts && this.connections.get(parts.adapter);
    if (!parts || !connection) return null;
    return connection.freshListing() ?? undefined;
  }

  private toolIn(adapter: string, listing: AdapterListing, name: string): BridgeToolDescriptor | null {
    const tool = listing.tools.find((candidate) => candidate.name === name);
    return tool ? this.describe(adapter, tool, listing.reachable ? null : (listing.error ?? 'unreachable')) : null;
  }

  /**
   * Whether a configured adapter declares the tool, for a registration check: `declared`; `not_declared` (its
   * adapter answered and does not list it); `adapter_unreachable` (its adapter is configured but down: cannot
   * tell); `no_such_adapter` (no configured adapter has its name, or the id has no `<adapter>.` part).
   */
  async declaration(toolId: string): Promise<{ state: ToolDeclaration; detail: string }> {
    const parts = splitToolId(toolId);
    const connection = parts && this.connections.get(parts.adapter);
    if (!parts || !connection) {
      const known = this.adapterNames.join(', ') || 'none';
      return { state: 'no_such_adapter', detail: `no configured adapter is named '${parts?.adapter ?? toolId}' (configured: ${known})` };
    }
    const listing = await connection.currentListing();
    if (listing.tools.some((tool) => tool.name === parts.tool))
      return { state: 'declared', detail: `adapter '${parts.adapter}' declares it` };
    if (!listing.reachable) {
      return { state: 'adapter_unreachable', detail: `adapter '${parts.adapter}' is unreachable: ${listing.error ?? 'no answer'}` };
    }
    const names = listing.tools.map((tool) => tool.name).join(', ') || 'none';
    return { state: 'not_declared', detail: `adapter '${parts.adapter}' declares no tool '${parts.tool}' (it declares: ${names})` };
  }

  /** Reachability of every configured adapter (from the availability cache). */
  async adapterStatus(): Promise<AdapterStatus[]> {
    return Promise.all(
      [...this.connections.values()].map(async (connection) => {
        const listing = await connection.currentListing();
        return {
          adapter: connection.name,
          url: connection.url.href,
          reachable: listing.reachable,
          toolCount: listing.tools.length,
          checkedAt: new Date(listing.checkedAt).toISOString(),
          error: listing.error ?? null,
        };
      }),
    );
  }

  /**
   * A view of this bridge for one execution: every call is reported to `listener` (`tool_invoked`, then
   * `tool_completed`), calls without a signal use `options.signal`, and errors name `options.skillName`.
   */
  forExecution(listener: ToolCallListener, options: ExecutionViewOptions = {}): McpBridge {
    return new ExecutionBridgeView(this, listener, options, this.logger);
  }

  /** Close every adapter connection; later calls fail with McpToolError. */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.connections.values()].map((connection) => connection.close()));
  }

  private resolve(toolId: string): { connection: AdapterConnection; tool: string } {
    if (this.closed) throw new McpToolError(toolId, 'the MCP bridge is closed');
    const parts = splitToolId(toolId);
    if (!parts) throw new McpToolError(toolId, `'${toolId}' is not a tool id of the form <adapter>.<tool>`);
    const connection = this.connections.get(parts.adapter);
    if (!connection) {
      const known = this.adapterNames.join(', ') || 'none';
      throw new McpToolError(toolId, `no adapter '${parts.adapter}' is configured in TOOL_ADAPTERS (configured: ${known})`, {
        adapter: parts.adapter,
      });
    }
    return { connection, tool: parts.tool };
  }

  private describe(adapter: string, tool: Tool, unreachableReason: string | null): BridgeToolDescriptor {
    const toolId = `${adapter}.${tool.name}`;
    const meta = isPlainObject(tool._meta) ? tool._meta : {};
    const flag = requiredFlag(tool);
    const flagOff = flag !== null && !this.featureFlags.has(flag);
    const disabled = this.disabled.has(toolId) || flagOff;
    let unavailableReason: string | null = null;
    if (this.disabled.has(toolId)) unavailableReason = 'disabled by TOOLS_DISABLED';
    else if (flagOff) unavailableReason = `requires feature flag '${flag}' (not in FEATURE_FLAGS)`;
    else if (unreachableReason) unavailableReason = `adapter '${adapter}' is unreachable: ${unreachableReason}`;
    else if (!programAvailable(tool)) {
      unavailableReason = typeof meta.unavailableReason === 'string' ? meta.unavailableReason : 'the adapter reports the tool unavailable';
    }
    return {
      toolId,
      adapter,
      name: tool.name,
      title: tool.title ?? null,
      capability: typeof meta.capability === 'string' ? meta.capability : null,
      description: tool.description ?? '',
      available: unavailableReason === null,
      disabled,
      unavailableReason,
      inputSchema: tool.inputSchema as Record<string, unknown>,
      outputSchema: (tool.outputSchema as Record<string, unknown> | undefined) ?? null,
      category: typeof meta.category === 'string' ? meta.category : null,
      timeoutSeconds: typeof meta.timeoutSeconds === 'number' && meta.timeoutSeconds > 0 ? meta.timeoutSeconds : null,
      idempotent: tool.annotations?.idempotentHint === true,
      requiresFeatureFlag: flag,
    };
  }

  private toSkillError(
    toolId: string,
    connection: AdapterConnection,
    error: unknown,
    context: { timeoutMs: number; signal?: AbortSignal; elapsedMs: number },
  ): SkillError {
    if (error instanceof SkillError) return error;
    if (context.signal?.aborted) return new McpTimeoutError(toolId, null);
    if ((error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout) || context.elapsedMs >= context.timeoutMs) {
      return new McpTimeoutError(toolId, context.timeoutMs);
    }
    if (error instanceof ProtocolError) {
      return new McpToolError(toolId, error.message, {
        protocolErrorCode: error.code,
        ...(error.data === undefined ? {} : { data: error.data }),
      });
    }
    if (error instanceof SdkError && error.code === SdkErrorCode.InvalidResult) {
      return new McpToolError(toolId, `the adapter returned an invalid result: ${error.message}`);
    }
    if (AdapterConnection.isConnectionFailure(error)) {
      return new McpToolError(toolId, `adapter '${connection.name}' is unreachable at ${connection.url.href}: ${describeError(error)}`, {
        adapter: connection.name,
        unreachable: true,
      });
    }
    return new McpToolError(toolId, describeError(error));
  }
}

/** What a registration check learns of a tool id (McpBridgeClient.declaration). */
export type ToolDeclaration = 'declared' | 'not_declared' | 'adapter_unreachable' | 'no_such_adapter';

/** The feature flag an adapter declares its tool needs (`_meta.requiresFeatureFlag`), or null. */
function requiredFlag(tool: Tool): string | null {
  const flag = isPlainObject(tool._meta) ? tool._meta.requiresFeatureFlag : undefined;
  return typeof flag === 'string' && flag.length > 0 ? flag : null;
}

/** Adapters of this project mark tools whose program is missing with `_meta.available: false`. */
function programAvailable(tool: Tool): boolean {
  return !(isPlainObject(tool._meta) && tool._meta.available === false);
}

function positive(value: number | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  if (!Number.isFinite(value) || value <= 0)
    throw new BridgeConfigError(`McpBridgeClient: ${name} must be a positive number (got ${value})`);
  return value;
}

function envNumber(env: Record<string, string | undefined>, name: string): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value <= 0) throw new BridgeConfigError(`${name}: '${raw}' is not a positive number of milliseconds`);
  return value;
}

function disabledResult(toolId: string): Record<string, unknown> & DisabledToolResult {
  return { disabled: true, reason: `tool '${toolId}' is disabled by TOOLS_DISABLED` };
}
