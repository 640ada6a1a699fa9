import type { ToolDeclaration } from '#mcp-bridge/index.js';
import type { ValidationIssue } from '#skill-loader/index.js';

/** What the registry's adapters said of one required tool id (AdapterToolDirectory.declarations). */
export interface ToolDeclarationFinding {
  toolId: string;
  state: ToolDeclaration;
  detail: string;
}

/**
 * Seed 001 §3.1 at registration: every `tools_required` id must be declared by a configured adapter. An
 * adapter that answers without the tool, or no configured adapter of that name, is an error (the skill could
 * never run here); an adapter that is down is a warning (it cannot be told). `findings` null: no adapter is
 * configured on this registry, so nothing can be checked — said as an info.
 */
export function requiredToolIssues(
  toolIds: readonly string[],
  findings: readonly ToolDeclarationFinding[] | null,
  file = 'definition.json',
): ValidationIssue[] {
  if (toolIds.length === 0) return [];
  const at = (toolId: string) => `/tools_required/${toolIds.indexOf(toolId)}/tool_id`;
  if (findings === null) {
    return [
      {
        severity: 'info',
        category: 'tools',
        file,
        path: '/tools_required',
        message: `required tools not checked: this registry has no tool adapters configured (TOOL_ADAPTERS)`,
        hint: 'Configure TOOL_ADAPTERS on the registry to have each required tool checked against its adapter.',
      },
    ];
  }
  return findings.flatMap((finding): ValidationIssue[] => {
    switch (finding.state) {
      case 'declared':
        return [];
      case 'adapter_unreachable':
        return [
          {
            severity: 'warning',
            category: 'tools',
            file,
            path: at(finding.toolId),
            message: `required tool ${finding.toolId} could not be checked: ${finding.detail}`,
            hint: 'Start the adapter; the skill cannot run until it answers and declares the tool.',
          },
        ];
      default:
        return [
          {
            severity: 'error',
            category: 'tools',
            file,
            path: at(finding.toolId),
            message: `required tool ${finding.toolId} is declared by no configured adapter: ${finding.detail}`,
            hint: 'Name a tool an adapter declares (GET /v1/tools lists them), or configure the adapter that has it (TOOL_ADAPTERS).',
          },
        ];
    }
  });
}

/** True when every error of a report is a required-tools finding: the package itself is sound, the registry's adapters were not. */
export function failsOnlyOnRequiredTools(validation: readonly Pick<ValidationIssue, 'severity' | 'category'>[]): boolean {
  const errors = validation.filter((issue) => issue.severity === 'error');
  return errors.length > 0 && errors.every((issue) => issue.category === 'tools');
}
