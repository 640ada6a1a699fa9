import { Inject, Injectable, type OnApplicationShutdown } from '@nestjs/common';
import {
  McpBridgeClient,
  parseDisabledTools,
  parseFeatureFlags,
  parseToolAdapters,
  type AdapterListing,
  type AdapterStatus,
  type BridgeToolDescriptor,
  type ToolDeclaration,
} from '#mcp-bridge/index.js';
import type { AdapterToolRef } from '#skill-loader/index.js';
import { APP_CONFIG, type AppConfig } from '../config/app-config.js';

/** Availability of one tool a skill requires. */
export interface RequiredAdapterToolStatus {
  tool_id: string;
  capability: string;
  required: boolean;
  available: boolean;
  /** Switched off (TOOLS_DISABLED, or a feature flag FEATURE_FLAGS does not enable): the skill still runs, and a call answers `{ disabled: true, reason }`. */
  disabled: boolean;
  reason: string | null;
}

/**
 * What the configured tool adapters offer right now, through the same MCP bridge the executor uses
 * (availability cached briefly and refreshed in the background).
 */
@Injectable()
export class AdapterToolDirectory implements OnApplicationShutdown {
  private readonly bridge: McpBridgeClient | null;
  /** statusJsonOf's texts, with the listings each was made from. */
  private readonly statusTexts = new WeakMap<AdapterToolRef[], { listings: (AdapterListing | null | undefined)[]; json: string }>();

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    const adapters = parseToolAdapters(config.TOOL_ADAPTERS);
    this.bridge = adapters.size
      ? new McpBridgeClient({
          adapters,
          disabledTools: parseDisabledTools(config.TOOLS_DISABLED),
          featureFlags: parseFeatureFlags(config.FEATURE_FLAGS),
          connectTimeoutMs: 2000,
        })
      : null;
  }

  async list(capability?: string): Promise<{ tools: BridgeToolDescriptor[]; adapters: AdapterStatus[] }> {
    if (!this.bridge) return { tools: [], adapters: [] };
    const [tools, adapters] = await Promise.all([this.bridge.listTools(capability), this.bridge.adapterStatus()]);
    return { tools, adapters };
  }

  /**
   * statusOf as JSON, for the hot read of a skill: while the same fresh listings answer, the text made from them
   * last time (by `required`: a version's list, which never changes), so a read does not rebuild it.
   */
  statusJsonOf(required: AdapterToolRef[]): string | Promise<string> {
    const listings = this.bridge ? required.map((ref) => (this.bridge as McpBridgeClient).freshListingFor(ref.tool_id)) : [];
    const made = listings.includes(undefined) ? undefined : this.statusTexts.get(required);
    if (made && made.listings.every((listing, index) => listing === listings[index])) return made.json;
    const status = this.statusOf(required);
    if (!Array.isArray(status)) return status.then((known) => JSON.stringify(known));
    const json = JSON.stringify(status);
    if (!listings.includes(undefined)) this.statusTexts.set(required, { listings, json });
    return json;
  }

  /**
   * Availability of each tool in `required`, for a skill's view: at once (an array) while the cached
   * listings answer, else a promise (an adapter's listing is refreshed first).
   */
  statusOf(required: AdapterToolRef[]): RequiredAdapterToolStatus[] | Promise<RequiredAdapterToolStatus[]> {
    const now = required.map((ref) => (this.bridge ? this.bridge.getToolNow(ref.tool_id) : null));
    if (!now.includes(undefined)) return required.map((ref, index) => this.statusFrom(ref, now[index] ?? null));
    const bridge = this.bridge as McpBridgeClient;
    return Promise.all(required.map(async (ref) => this.statusFrom(ref, await bridge.getTool(ref.tool_id).catch(() => null))));
  }

  private statusFrom(ref: AdapterToolRef, tool: BridgeToolDescriptor | null): RequiredAdapterToolStatus {
    const disabled = tool?.disabled ?? this.bridge?.isDisabled(ref.tool_id) ?? false;
    const reason =
      tool?.unavailableReason ??
      (this.bridge?.isDisabled(ref.tool_id)
        ? 'disabled by TOOLS_DISABLED'
        : this.bridge
          ? 'no configured adapter offers this tool'
          : 'no tool adapters are configured (TOOL_ADAPTERS)');
    return {
      tool_id: ref.tool_id,
      capability: ref.capability,
      required: ref.required !== false,
      available: tool?.available ?? false,
      disabled,
      reason: tool?.available ? null : reason,
    };
  }

  /**
   * Whether a configured adapter declares each tool a package requires (seed 001 §3.1), for the package's
   * validation report: null when no adapter is configured here, so nothing can be checked.
   */
  async declarations(toolIds: readonly string[]): Promise<{ toolId: string; state: ToolDeclaration; detail: string }[] | null> {
    const bridge = this.bridge;
    if (!bridge) return null;
    return Promise.all(toolIds.map(async (toolId) => ({ toolId, ...(await bridge.declaration(toolId)) })));
  }

  async onApplicationShutdown(): Promise<void> {
    await this.bridge?.close();
  }
}
