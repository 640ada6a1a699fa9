/** One configured adapter: its name (the `<adapter>` part of a tool id) and its MCP endpoint. */
export type ToolAdapterMap = Map<string, URL>;

const ADAPTER_NAME = /^[a-z][a-z0-9_-]*$/;
const TOOL_ID = /^[a-z][a-z0-9_-]*\.[A-Za-z][A-Za-z0-9_-]*$/;

/** A configuration value that cannot be used; the message names the variable and the bad entry. */
export class BridgeConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'BridgeConfigError';
  }
}

/**
 * Parse `TOOL_ADAPTERS`: comma-separated `<adapter>=<http(s) URL of its MCP endpoint>` entries,
 * e.g. `spice=http://127.0.0.1:7101/mcp,calculix=http://127.0.0.1:7102/mcp`. Empty input gives no adapters.
 */
export function parseToolAdapters(raw: string | undefined, variable = 'TOOL_ADAPTERS'): ToolAdapterMap {
  const adapters: ToolAdapterMap = new Map();
  for (const entry of splitList(raw)) {
    const eq = entry.indexOf('=');
    if (eq <= 0) {
      throw new BridgeConfigError(`${variable}: entry '${entry}' is not of the form <adapter>=<url>`);
    }
    const name = entry.slice(0, eq).trim();
    const urlText = entry.slice(eq + 1).trim();
    if (!ADAPTER_NAME.test(name)) {
      throw new BridgeConfigError(
        `${variable}: adapter name '${name}' in entry '${entry}' must start with a lowercase letter and use only a-z, 0-9, '_' and '-'`,
      );
    }
    if (adapters.has(name)) {
      throw new BridgeConfigError(`${variable}: adapter '${name}' is configured twice`);
    }
    let url: URL;
    try {
      url = new URL(urlText);
    } catch {
      throw new BridgeConfigError(`${variable}: entry '${entry}' has an invalid URL '${urlText}'`);
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      throw new BridgeConfigError(`${variable}: entry '${entry}' must use an http:// or https:// URL (got ${url.protocol})`);
    }
    adapters.set(name, url);
  }
  return adapters;
}

/**
 * Parse `TOOLS_DISABLED` (feature flags): comma-separated tool ids `<adapter>.<tool>` that must not be called,
 * e.g. `calculix.run_thermal,gmsh.measure`. Empty input disables nothing.
 */
export function parseDisabledTools(raw: string | undefined, variable = 'TOOLS_DISABLED'): Set<string> {
  const disabled = new Set<string>();
  for (const entry of splitList(raw)) {
    if (!TOOL_ID.test(entry)) {
      throw new BridgeConfigError(`${variable}: '${entry}' is not a tool id of the form <adapter>.<tool> (e.g. calculix.run_fea)`);
    }
    disabled.add(entry);
  }
  return disabled;
}

const FLAG_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

/**
 * Parse `FEATURE_FLAGS`: comma-separated names of the feature flags this platform enables, e.g.
 * `enable_thermal,enable_beta_drc`. A tool or hook that requires a flag not listed is off. Empty enables none.
 */
export function parseFeatureFlags(raw: string | undefined, variable = 'FEATURE_FLAGS'): Set<string> {
  const flags = new Set<string>();
  for (const entry of splitList(raw)) {
    if (!FLAG_NAME.test(entry)) {
      throw new BridgeConfigError(`${variable}: '${entry}' is not a flag name (a letter, then letters, digits, '_', '.' or '-')`);
    }
    flags.add(entry);
  }
  return flags;
}

/** Split `<adapter>.<tool>`; null when the id has no adapter or no tool part. */
export function splitToolId(toolId: string): { adapter: string; tool: string } | null {
  const dot = toolId.indexOf('.');
  if (dot <= 0 || dot === toolId.length - 1) return null;
  return { adapter: toolId.slice(0, dot), tool: toolId.slice(dot + 1) };
}

function splitList(raw: string | undefined): string[] {
  return (raw ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry.length > 0);
}
