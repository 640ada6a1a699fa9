import { type RunContract, runContractOf } from '#contracts/index.js';
import type { SkillVersionRecord } from '../catalog/skill-records.js';
import { RequestInvalid, ScriptToolNotFound, SkillNotExecutable } from '../problem/domain-errors.js';

/** The contract an execution of `version` (with `tool`, if named) runs under (runContractOf), or a clear refusal naming the tools there are. */
export function contractToRun(version: SkillVersionRecord, tool: string | undefined): RunContract {
  const contract = runContractOf(version, tool);
  // What `tool` may name: a script tool, or a workflow of them (seed 004).
  const names = [...version.tools, ...version.workflows].map((candidate) => candidate.name);
  if (!contract) {
    if (version.tools.length === 0 && tool !== undefined) {
      throw new RequestInvalid(`Skill '${version.name}' has one handler and no tools; leave out 'tool'`, [
        { field: 'tool', message: 'this skill has no tools' },
      ]);
    }
    if (tool === undefined) {
      throw new RequestInvalid(
        names.length
          ? `Skill '${version.name}' ${version.version} has several tools; name one with 'tool': ${names.join(', ')}`
          : `Skill '${version.name}' ${version.version} is instructions only: it has no tools to execute`,
        [{ field: 'tool', message: names.length ? `one of ${names.join(', ')}` : 'this skill has no tools' }],
      );
    }
    throw new ScriptToolNotFound(version.name, version.version, tool, names);
  }
  if (contract.tool && !contract.tool.script) {
    throw new SkillNotExecutable(
      version.name,
      version.version,
      version.status,
      `tool '${contract.tool.name}' cannot run here: ${contract.tool.not_executable_reason ?? 'it has no script'}`,
    );
  }
  if (contract.workflow?.not_executable_reason) {
    throw new SkillNotExecutable(
      version.name,
      version.version,
      version.status,
      `workflow '${contract.workflow.name}' cannot run here: ${contract.workflow.not_executable_reason}`,
    );
  }
  return contract;
}
