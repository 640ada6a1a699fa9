import { OBSERVING_PHASES, type HookPhase, type HookScope } from './hook-file.js';

/** The skill a run is of, as scopes match it. */
export interface HookSkill {
  name: string;
  version: string;
  domain: string;
  tags: readonly string[];
}

/** What one phase of a run shows its hooks. */
export interface HookEvent {
  phase: HookPhase;
  skill: HookSkill;
  execution: {
    /** Null in `pre_flight`: nothing is stored yet. */
    id: string | null;
    caller: string;
    sessionId: string | null;
    attempt: number | null;
    input: Record<string, unknown>;
    output?: Record<string, unknown> | null;
    error?: { code: string; message: string; details?: Record<string, unknown> } | null;
    status?: string;
  };
  /** `on_tool`: the call that completed. */
  tool?: { id: string; ok: boolean; durationMs: number; disabled?: boolean; error?: { code: string; message: string } };
}

/** What the hooks of a run have added so far; each hook sees what the ones before it added. */
export interface HookContext {
  readonly metadata: Readonly<Record<string, unknown>>;
  /** JSON Pointers into `{ input, output }` removed from what is stored and sent (see redaction.ts). */
  readonly redactions: readonly string[];
}

export const EMPTY_CONTEXT: HookContext = Object.freeze({ metadata: Object.freeze({}), redactions: Object.freeze([]) });

/** What a hook answers: a refusal stops the run; metadata and redactions join the context; metrics are counted. */
export interface HookResult {
  refuse?: { reason: string; action?: string; retryAfterSeconds?: number };
  metadata?: Record<string, unknown>;
  redactions?: readonly string[];
  metrics?: Record<string, number>;
}

/** One hook of one phase, from the file or from code: both run under the same rules. */
export interface RunnableHook {
  readonly name: string;
  readonly phase: HookPhase;
  readonly priority: number;
  readonly failClosed: boolean;
  readonly source: 'file' | 'code';
  run(event: HookEvent, context: HookContext): Promise<HookResult | void> | HookResult | void;
}

/** A hook refused the run (deny, require_tag, rate_limit, a code hook's veto). */
export class HookRefusal extends Error {
  constructor(
    readonly hook: string,
    readonly phase: HookPhase,
    readonly reason: string,
    readonly action: string | undefined,
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`Refused by hook '${hook}' (${phase}): ${reason}`);
    this.name = 'HookRefusal';
  }
}

/** A fail-closed hook failed: the run stops, naming it. */
export class HookFailure extends Error {
  constructor(
    readonly hook: string,
    readonly phase: HookPhase,
    override readonly cause: unknown,
  ) {
    super(`Hook '${hook}' (${phase}) failed and is fail-closed: ${messageOf(cause)}`);
    this.name = 'HookFailure';
  }
}

/** Told about every hook that ran or failed (execution events, hook.failed, metrics). */
export interface HookObserver {
  ran(hook: RunnableHook, outcome: 'ok' | 'refused', metrics: Record<string, number> | undefined): void;
  failed(hook: RunnableHook, error: unknown): void;
}

/** The one order of hooks, data and code alike: ascending priority, then name. */
export function orderHooks<T extends Pick<RunnableHook, 'priority' | 'name'>>(hooks: readonly T[]): T[] {
  return [...hooks].sort((a, b) => a.priority - b.priority || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Whether `scope` covers `skill`: every list it gives must match (a name, a `prefix*`, a tag, a domain); none given: every skill. */
export function inScope(scope: HookScope, skill: HookSkill): boolean {
  if (scope.skills && !scope.skills.some((pattern) => matchesName(pattern, skill.name))) return false;
  if (scope.tags && !scope.tags.some((tag) => skill.tags.includes(tag))) return false;
  if (scope.domains && !scope.domains.includes(skill.domain)) return false;
  return true;
}

function matchesName(pattern: string, name: string): boolean {
  return pattern.endsWith('*') ? name.startsWith(pattern.slice(0, -1)) : pattern === name;
}

/**
 * Runs one phase's hooks in order, each seeing the context the ones before it left. A refusal stops the phase
 * (HookRefusal); a failing hook is reported and skipped, unless it is fail-closed (HookFailure). After the outcome
 * is decided (post_delivery, on_error) nothing stops: refusals and failures are only reported.
 */
export async function runPhase(
  hooks: readonly RunnableHook[],
  event: HookEvent,
  start: HookContext,
  observer: HookObserver,
): Promise<HookContext> {
  let context = start;
  const canStop = !OBSERVING_PHASES.has(event.phase);
  for (const hook of hooks) {
    let result: HookResult | void;
    try {
      result = await hook.run(event, context);
    } catch (error) {
      observer.failed(hook, error);
      if (hook.failClosed && canStop) throw new HookFailure(hook.name, event.phase, error);
      continue;
    }
    observer.ran(hook, result?.refuse ? 'refused' : 'ok', result?.metrics);
    if (result) context = withResult(context, result);
    if (result?.refuse && canStop) {
      const { reason, action, retryAfterSeconds } = result.refuse;
      throw new HookRefusal(hook.name, event.phase, reason, action, retryAfterSeconds);
    }
  }
  return context;
}

/** The context with a hook's metadata merged in (later keys win) and its redactions added. */
function withResult(context: HookContext, result: Pick<HookResult, 'metadata' | 'redactions'>): HookContext {
  const metadata =
    result.metadata && Object.keys(result.metadata).length > 0 ? { ...context.metadata, ...result.metadata } : context.metadata;
  const added = (result.redactions ?? []).filter((entry) => !context.redactions.includes(entry));
  const redactions = added.length > 0 ? [...context.redactions, ...added] : context.redactions;
  return metadata === context.metadata && redactions === context.redactions ? context : { metadata, redactions };
}

export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
