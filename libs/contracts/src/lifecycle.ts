/**
 * The skill version lifecycle as data: every transport, the loader and the tests read this one table.
 *
 *   DRAFT ──validation──> REGISTERED ──promotion──> ACTIVE ──deprecation──> DEPRECATED
 *   any state ──removal (package gone from disk)──> ARCHIVED ──reappearance──> DRAFT | REGISTERED
 */
export const SKILL_STATUSES = ['DRAFT', 'REGISTERED', 'ACTIVE', 'DEPRECATED', 'ARCHIVED'] as const;
export type SkillStatusName = (typeof SKILL_STATUSES)[number];

/** What causes a move: who may ask for it is decided by the use-case that owns the trigger. */
export type TransitionTrigger = 'validation' | 'promotion' | 'deprecation' | 'removal' | 'reappearance';

export interface Transition {
  from: SkillStatusName;
  to: SkillStatusName;
  via: TransitionTrigger;
}

export const LIFECYCLE_TRANSITIONS: readonly Transition[] = [
  { from: 'DRAFT', to: 'REGISTERED', via: 'validation' },
  { from: 'REGISTERED', to: 'ACTIVE', via: 'promotion' },
  { from: 'ACTIVE', to: 'DEPRECATED', via: 'deprecation' },
  { from: 'DRAFT', to: 'ARCHIVED', via: 'removal' },
  { from: 'REGISTERED', to: 'ARCHIVED', via: 'removal' },
  { from: 'ACTIVE', to: 'ARCHIVED', via: 'removal' },
  { from: 'DEPRECATED', to: 'ARCHIVED', via: 'removal' },
  { from: 'ARCHIVED', to: 'DRAFT', via: 'reappearance' },
  { from: 'ARCHIVED', to: 'REGISTERED', via: 'reappearance' },
];

/** The moves allowed out of `from`. */
export function allowedTransitions(from: SkillStatusName): { to: SkillStatusName; via: TransitionTrigger }[] {
  return LIFECYCLE_TRANSITIONS.filter((move) => move.from === from).map(({ to, via }) => ({ to, via }));
}

/** The transition from `from` to `to` through `via`, or null when the table does not allow it. */
export function findTransition(from: SkillStatusName, to: SkillStatusName, via: TransitionTrigger): Transition | null {
  return LIFECYCLE_TRANSITIONS.find((move) => move.from === from && move.to === to && move.via === via) ?? null;
}

/** Statuses whose versions agents may see and execute. */
const EXECUTABLE_STATUSES: readonly SkillStatusName[] = ['ACTIVE', 'DEPRECATED'];

export function isExecutable(status: SkillStatusName): boolean {
  return EXECUTABLE_STATUSES.includes(status);
}
