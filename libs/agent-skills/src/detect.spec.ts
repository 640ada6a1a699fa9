import { isAgentSkillsPackage } from './detect.js';

describe('isAgentSkillsPackage', () => {
  it('is true for a SKILL.md without definition.json', () => {
    expect(isAgentSkillsPackage(['SKILL.md', 'tools.yaml', 'scripts/greet.py'])).toBe(true);
    expect(isAgentSkillsPackage(['./SKILL.md'])).toBe(true);
  });

  it('is false for a TypeScript package, whose SKILL.md is documentation', () => {
    expect(isAgentSkillsPackage(['SKILL.md', 'definition.json', 'handler.ts', 'schema.ts'])).toBe(false);
  });

  it('is false without a SKILL.md at the package root', () => {
    expect(isAgentSkillsPackage(['references/SKILL.md', 'scripts/run.py'])).toBe(false);
    expect(isAgentSkillsPackage([])).toBe(false);
  });
});
