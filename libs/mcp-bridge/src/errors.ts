import { SkillPreconditionError } from '@skill-registry/sdk';

/**
 * The tool is switched off by the `TOOLS_DISABLED` feature flag. A precondition failure
 * (`PRECONDITION_FAILED`), never retried: the call did not reach the adapter.
 */
export class ToolDisabledError extends SkillPreconditionError {
  constructor(
    readonly toolId: string,
    skillName?: string,
  ) {
    const reason = `tool '${toolId}' is disabled by TOOLS_DISABLED`;
    super(skillName ?? toolId, [reason]);
    this.message = skillName ? `Preconditions of '${skillName}' failed: ${reason}` : `Tool '${toolId}' is disabled by TOOLS_DISABLED`;
    this.details.toolId = toolId;
    this.details.disabled = true;
  }
}
