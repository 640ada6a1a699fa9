import type { McpBridge } from '@skill-registry/sdk';

/**
 * The required tools of a skill that are not available now, each with the reason when the bridge
 * knows it (e.g. "gmsh is not installed"). Optional tools (`required: false`) never count, nor do tools
 * the operator disabled: a call of one answers `{ disabled: true, reason }` and the handler decides
 * (seed 001 §3.3), so the run goes ahead.
 */
export async function missingTools(
  bridge: McpBridge & { isDisabled?(toolId: string): boolean },
  toolsRequired: readonly { tool_id: string; required?: boolean }[],
): Promise<string[]> {
  const required = toolsRequired.filter((tool) => tool.required !== false).map((tool) => tool.tool_id);
  if (required.length === 0) return [];
  const availability = await Promise.all(required.map((toolId) => bridge.isAvailable(toolId).catch(() => false)));
  // Asked after isAvailable: a tool whose adapter requires a feature flag is known to be disabled once its listing is read.
  const missing = required.filter((toolId, index) => !availability[index] && !bridge.isDisabled?.(toolId));
  if (missing.length === 0) return [];
  const listed = await bridge.listTools().catch(() => []);
  return missing.map((toolId) => {
    const reason = (listed.find((tool) => tool.toolId === toolId) as { unavailableReason?: string | null } | undefined)?.unavailableReason;
    return reason ? `${toolId} (${reason})` : toolId;
  });
}
