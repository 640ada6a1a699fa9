import { projectMetadataStrings } from './metadata-strings.js';

describe('projectMetadataStrings', () => {
  it('keeps top-level strings as they are', () => {
    expect(projectMetadataStrings({ author: 'example-org', version: '1.0' })).toEqual({ author: 'example-org', version: '1.0' });
  });

  it('flattens the dcc-mcp namespace into dotted keys', () => {
    expect(
      projectMetadataStrings({
        'dcc-mcp': {
          dcc: 'maya',
          version: '1.0.0',
          tags: ['geometry', 'create'],
          'search-hint': 'polygon modeling, sphere',
          'allow-implicit-invocation': false,
          priority: 3,
          tools: 'tools.yaml',
        },
      }),
    ).toEqual({
      'dcc-mcp.dcc': 'maya',
      'dcc-mcp.version': '1.0.0',
      'dcc-mcp.tags': 'geometry,create',
      'dcc-mcp.search-hint': 'polygon modeling, sphere',
      'dcc-mcp.allow-implicit-invocation': 'false',
      'dcc-mcp.priority': '3',
      'dcc-mcp.tools': 'tools.yaml',
    });
  });

  it('JSON-encodes objects, lists of objects and lists whose items contain commas', () => {
    expect(
      projectMetadataStrings({
        'dcc-mcp': {
          depends: [{ name: 'usd-tools', range: '^1.0.0' }],
          'external-deps': { env: ['HFS'] },
          'search-aliases': ['ball, sphere', 'globe'],
        },
      }),
    ).toEqual({
      'dcc-mcp.depends': '[{"name":"usd-tools","range":"^1.0.0"}]',
      'dcc-mcp.external-deps': '{"env":["HFS"]}',
      'dcc-mcp.search-aliases': '["ball, sphere","globe"]',
    });
  });

  it('lets the nested form win over the flat pre-0.15 key, in either order', () => {
    expect(projectMetadataStrings({ 'dcc-mcp.version': '0.9.0', 'dcc-mcp': { version: '1.0.0' } })).toEqual({ 'dcc-mcp.version': '1.0.0' });
    expect(projectMetadataStrings({ 'dcc-mcp': { version: '1.0.0' }, 'dcc-mcp.version': '0.9.0' })).toEqual({ 'dcc-mcp.version': '1.0.0' });
  });

  it('leaves out nulls and non-string values outside the vendor namespace', () => {
    expect(projectMetadataStrings({ priority: 3, owner: { team: 'x' }, 'dcc-mcp': { layer: null }, name: 'kept' })).toEqual({
      name: 'kept',
    });
  });
});
