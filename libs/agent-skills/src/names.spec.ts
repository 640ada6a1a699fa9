import fc from 'fast-check';
import { SKILL_NAME_PATTERN } from '#skill-loader/definition.js';
import {
  agentSkillsNameProblem,
  isAgentSkillsName,
  qualifiedToolName,
  QUALIFIED_TOOL_NAME_PATTERN,
  toAgentSkillsName,
  toRegistryName,
} from './names.js';

describe('the one name mapping between Agent Skills and catalog names', () => {
  it('maps hyphens to underscores and back', () => {
    expect(toRegistryName('hello-world')).toBe('hello_world');
    expect(toAgentSkillsName('hello_world')).toBe('hello-world');
    expect(toRegistryName('maya-geometry-2')).toBe('maya_geometry_2');
  });

  it('round-trips every valid Agent Skills name that starts with a letter into a valid catalog name', () => {
    const segment = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    const names = fc
      .tuple(fc.stringMatching(/^[a-z][a-z0-9]{0,7}$/), fc.array(segment, { maxLength: 5 }))
      .map(([first, rest]) => [first, ...rest].join('-'))
      .filter((name) => name.length <= 64);
    fc.assert(
      fc.property(names, (name) => {
        expect(isAgentSkillsName(name)).toBe(true);
        expect(agentSkillsNameProblem(name)).toBeNull();
        expect(SKILL_NAME_PATTERN.test(toRegistryName(name))).toBe(true);
        expect(toAgentSkillsName(toRegistryName(name))).toBe(name);
      }),
    );
  });

  it.each([
    ['', 'name must be 1 to 64 characters; found 0'],
    ['a'.repeat(65), 'name must be 1 to 64 characters; found 65'],
    ['Hello-World', "name 'Hello-World' is not a valid Agent Skills name"],
    ['hello_world', "name 'hello_world' is not a valid Agent Skills name"],
    ['-hello', "name '-hello' is not a valid Agent Skills name"],
    ['hello-', "name 'hello-' is not a valid Agent Skills name"],
    ['hello--world', "name 'hello--world' is not a valid Agent Skills name"],
    ['3d-tools', "name '3d-tools' has no catalog name"],
  ])('refuses %j', (name, message) => {
    expect(agentSkillsNameProblem(name)?.message).toContain(message);
  });

  it('suggests a kebab-case spelling for an invalid name', () => {
    expect(agentSkillsNameProblem('Hello_World')?.hint).toBe('Use "name: hello-world" and rename the directory to match.');
  });

  it('qualifies tool names as <registry_name>__<tool_name>', () => {
    expect(qualifiedToolName('hello_world', 'greet')).toBe('hello_world__greet');
    expect(QUALIFIED_TOOL_NAME_PATTERN.test('hello_world__greet')).toBe(true);
    expect(QUALIFIED_TOOL_NAME_PATTERN.test('maya.geometry.bevel')).toBe(false);
    expect(QUALIFIED_TOOL_NAME_PATTERN.test('hello-world__greet')).toBe(false);
  });
});
