import { WorkflowReferenceUnresolved, parseReference, referencesIn, renderArguments, workflowInputs } from './workflows.js';

describe('workflow argument templates', () => {
  const scope = {
    inputs: { radius: 2, prefix: 'ball', tags: ['a', 'b'] },
    outputs: { create: { name: 'ball_2', meshes: [{ id: 7 }], empty: null } },
  };

  it('gives a whole-string reference its JSON value, and text around a reference the value as text', () => {
    expect(
      renderArguments(
        {
          radius: '{{inputs.radius}}',
          name: '{{ inputs.prefix }}_{{inputs.radius}}',
          first: '{{steps.create.output.meshes[0].id}}',
          mesh: { of: '{{steps.create.output.name}}', list: ['{{inputs.tags}}', 'tags: {{inputs.tags}}'] },
          literal: 3,
          empty: '{{steps.create.output.empty}}',
        },
        scope,
      ),
    ).toEqual({
      radius: 2,
      name: 'ball_2',
      first: 7,
      mesh: { of: 'ball_2', list: [['a', 'b'], 'tags: ["a","b"]'] },
      literal: 3,
      empty: null,
    });
  });

  it('refuses a reference that does not resolve, naming it, and never walks into prototypes', () => {
    expect(() => renderArguments({ x: '{{steps.create.output.nope}}' }, scope)).toThrow(WorkflowReferenceUnresolved);
    expect(() => renderArguments({ x: '{{steps.create.output.meshes[3]}}' }, scope)).toThrow(/meshes\[3\]/);
    expect(() => renderArguments({ x: '{{inputs.radius.__proto__}}' }, scope)).toThrow(WorkflowReferenceUnresolved);
    expect(() => renderArguments({ x: '{{steps.later.output}}' }, scope)).toThrow(WorkflowReferenceUnresolved);
  });

  it('parses references into root, name and path, and explains malformed ones', () => {
    expect(parseReference('steps.create.output.meshes[0].id')).toEqual({
      expression: 'steps.create.output.meshes[0].id',
      root: 'steps',
      name: 'create',
      path: ['meshes', 0, 'id'],
    });
    expect(parseReference('inputs.radius')).toMatchObject({ root: 'inputs', name: 'radius', path: [] });
    expect(parseReference('env.HOME')).toMatch(/must start with inputs/);
    expect(parseReference('steps.create.name')).toMatch(/must continue with \.output/);
    expect(parseReference('inputs.a b')).toMatch(/not a path/);
    expect(referencesIn({ a: ['x {{inputs.a}} {{steps.s.output}}'], b: 1 })).toHaveLength(2);
  });

  it('fills in the default of every input left out', () => {
    const workflow = { input_schema: { properties: { radius: { type: 'number' }, segments: { type: 'integer', default: 2 } } } };
    expect(workflowInputs(workflow, { radius: 1 })).toEqual({ radius: 1, segments: 2 });
    expect(workflowInputs(workflow, { radius: 1, segments: 5 })).toEqual({ radius: 1, segments: 5 });
  });
});
