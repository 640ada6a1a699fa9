import { LRUCache } from 'lru-cache';
import { fileHook, type HookPorts } from './file-hooks.js';
import type { HookDefinition, HookPhase } from './hook-file.js';
import { type HookContext, type HookSkill, type RunnableHook, inScope, orderHooks } from './hook-run.js';

/**
 * The hooks that apply to one skill version, by phase, in the one order (priority, then name), file and code
 * hooks alike. `redactions` are the pointers of its `redact` hooks: they hold for the whole run, from its first
 * hook on (a webhook never sends what a redact hook of the same run removes, whatever their phases).
 */
export class SkillHooks {
  private readonly byPhase = new Map<HookPhase, RunnableHook[]>();

  constructor(
    hooks: readonly RunnableHook[],
    readonly redactions: readonly string[] = [],
  ) {
    for (const hook of orderHooks(hooks)) {
      const list = this.byPhase.get(hook.phase) ?? [];
      list.push(hook);
      this.byPhase.set(hook.phase, list);
    }
  }

  /** True when no hook applies: the run is exactly what it would be without hooks. */
  get empty(): boolean {
    return this.byPhase.size === 0;
  }

  phase(phase: HookPhase): readonly RunnableHook[] {
    return this.byPhase.get(phase) ?? [];
  }

  /** The context a run starts with: no metadata, the redactions of its redact hooks. */
  initialContext(): HookContext {
    return { metadata: {}, redactions: this.redactions };
  }

  /** These hooks and `others` (code hooks), ordered together. */
  with(others: readonly RunnableHook[]): SkillHooks {
    if (others.length === 0) return this;
    return new SkillHooks([...[...this.byPhase.values()].flat(), ...others], this.redactions);
  }
}

/**
 * One reading of the hooks file: its hooks that FEATURE_FLAGS leaves on, and, per skill version, those whose
 * scope covers it (cached; a version's name, domain and tags never change).
 */
export class HookSet {
  private readonly active: readonly HookDefinition[];
  private readonly perVersion = new LRUCache<string, SkillHooks>({ max: 2000 });

  constructor(
    readonly definitions: readonly HookDefinition[],
    featureFlags: ReadonlySet<string>,
    private readonly ports: HookPorts,
  ) {
    this.active = definitions.filter((hook) => !hook.requires_feature_flag || featureFlags.has(hook.requires_feature_flag));
  }

  forSkill(skill: HookSkill): SkillHooks {
    const key = `${skill.name}@${skill.version}`;
    let hooks = this.perVersion.get(key);
    if (!hooks) {
      const applying = this.active.filter((hook) => inScope(hook.scope, skill));
      const redactions = [...new Set(applying.flatMap((hook) => (hook.action.type === 'redact' ? hook.action.pointers : [])))];
      hooks = new SkillHooks(
        applying.map((hook) => fileHook(hook, this.ports)),
        redactions,
      );
      this.perVersion.set(key, hooks);
    }
    return hooks;
  }
}
