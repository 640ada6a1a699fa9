import type { StoredRuntime } from '#contracts/index.js';
import type { ValidationIssue } from '#skill-loader/index.js';

/**
 * Seed 004's runtimes at registration, as findings: a required runtime the probe did not find is a warning (the
 * skill registers, marked `missing`, since hosts may still provide it), an optional one an info (`degraded`).
 */
export function runtimeIssues(runtimes: readonly StoredRuntime[]): ValidationIssue[] {
  return runtimes.flatMap((runtime): ValidationIssue[] => {
    if (runtime.state === 'available') return [];
    const what = { binary: 'program', env_var: 'environment variable', python_package: 'Python module' }[runtime.type];
    const feature = runtime.feature_level ? ` (feature level ${runtime.feature_level})` : '';
    return [
      {
        severity: runtime.state === 'missing' ? 'warning' : 'info',
        category: 'dependencies',
        file: 'SKILL.md',
        path: '/metadata/dcc-mcp/runtimes',
        message: `runtime '${runtime.name}'${feature}: ${what} ${runtime.target} was not found where script tools run; the skill is ${runtime.state === 'missing' ? 'missing' : 'degraded'} here`,
        hint: runtime.hint ?? `Install ${runtime.target} on the executors' hosts, or mark the runtime optional.`,
      },
    ];
  });
}
