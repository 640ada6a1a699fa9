import { LIFECYCLE_TRANSITIONS, SKILL_STATUSES, allowedTransitions, findTransition, isExecutable } from './lifecycle.js';

describe('lifecycle transition table', () => {
  it('follows the seed: DRAFT → REGISTERED → ACTIVE → DEPRECATED, one trigger each', () => {
    expect(findTransition('DRAFT', 'REGISTERED', 'validation')).not.toBeNull();
    expect(findTransition('REGISTERED', 'ACTIVE', 'promotion')).not.toBeNull();
    expect(findTransition('ACTIVE', 'DEPRECATED', 'deprecation')).not.toBeNull();
  });

  it('refuses skipping steps and moving backwards', () => {
    expect(findTransition('DRAFT', 'ACTIVE', 'promotion')).toBeNull();
    expect(findTransition('REGISTERED', 'DEPRECATED', 'deprecation')).toBeNull();
    expect(findTransition('DEPRECATED', 'ACTIVE', 'promotion')).toBeNull();
    expect(findTransition('ACTIVE', 'REGISTERED', 'validation')).toBeNull();
    expect(findTransition('DEPRECATED', 'DEPRECATED', 'deprecation')).toBeNull();
  });

  it('refuses a legal pair through the wrong trigger', () => {
    expect(findTransition('REGISTERED', 'ACTIVE', 'validation')).toBeNull();
    expect(findTransition('ACTIVE', 'DEPRECATED', 'removal')).toBeNull();
  });

  it('lets every live state be archived and archived versions come back only through reappearance', () => {
    for (const status of SKILL_STATUSES.filter((s) => s !== 'ARCHIVED')) {
      expect(allowedTransitions(status)).toContainEqual({ to: 'ARCHIVED', via: 'removal' });
    }
    expect(allowedTransitions('ARCHIVED').map((move) => move.via)).toEqual(['reappearance', 'reappearance']);
  });

  it('has no duplicate moves and no self-loops', () => {
    const keys = LIFECYCLE_TRANSITIONS.map((move) => `${move.from}>${move.to}>${move.via}`);
    expect(new Set(keys).size).toBe(keys.length);
    expect(LIFECYCLE_TRANSITIONS.filter((move) => move.from === move.to)).toEqual([]);
  });

  it('makes only ACTIVE and DEPRECATED executable', () => {
    expect(SKILL_STATUSES.filter(isExecutable)).toEqual(['ACTIVE', 'DEPRECATED']);
  });
});
