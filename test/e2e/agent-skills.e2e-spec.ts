import { createHash } from 'node:crypto';
import { cp, mkdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { status as grpcStatus } from '@grpc/grpc-js';
import { packPackageArchive, readPackageDir } from '#package-store/index.js';
import { z } from 'zod';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { startExecutor, type RunningExecutor } from '../support/executor.js';
import { obliterateQueue } from '../support/executions.js';
import { bearer, failure, grpcPort, registryClient, struct, unary, type RegistryClient } from '../support/grpc.js';
import { Client, ProtocolError, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { ADMIN_TOKEN, call, startRegistry, type RunningRegistry } from '../support/registry.js';
import { REPO_ROOT, tempRoot } from '../support/skill-packages.js';

const FIXTURES = path.join(REPO_ROOT, 'test/fixtures/agent-skills/good');

/** A two-tool Agent Skills package: a Python tool and a bash tool, each with an example. */
async function writeTextTools(root: string, version = '1.0.0'): Promise<string> {
  const dir = path.join(root, 'text-tools');
  await mkdir(path.join(dir, 'scripts'), { recursive: true });
  await writeFile(
    path.join(dir, 'SKILL.md'),
    `---
name: text-tools
description: Count the words of a text, or upper-case it. Use when the user asks how long a text is.
license: MIT
metadata:
  domain: text
  dcc-mcp:
    version: "${version}"
    tags: [text, words]
    search-hint: "word count, tally, loud"
    search-aliases: [wordcounter]
    tools: tools.yaml
---

# Text tools
`,
  );
  await writeFile(
    path.join(dir, 'tools.yaml'),
    `tools:
  - name: count_words
    description: Count the words of a text.
    source_file: scripts/count_words.py
    idempotent: true
    retries: 1
    timeout_seconds: 10
    input_schema:
      type: object
      required: [text]
      additionalProperties: false
      properties:
        text: { type: string, minLength: 1 }
    output_schema:
      type: object
      required: [words]
      properties:
        words: { type: integer }
    next-tools:
      on-success: [text_tools__shout]
    examples:
      - input: { text: "one two three" }
        output: { words: 3 }
  - name: shout
    description: Upper-case a text.
    source_file: scripts/shout.sh
    read_only: true
    input_schema:
      type: object
      required: [text]
      properties:
        text: { type: string }
    examples:
      - input: { text: "hey" }
        output: { text: "HEY" }
`,
  );
  await writeFile(
    path.join(dir, 'scripts/count_words.py'),
    'import json, sys\nargs = json.load(sys.stdin)\nprint(json.dumps({"words": len(args["text"].split())}))\n',
  );
  await writeFile(
    path.join(dir, 'scripts/shout.sh'),
    '#!/usr/bin/env bash\ntext=$(python3 -c \'import json,sys; print(json.load(sys.stdin)["text"].upper())\')\nprintf \'{"text": "%s"}\' "$text"\n',
  );
  return dir;
}

describe('Agent Skills packages (SKILL.md + tools.yaml)', () => {
  let db: TestDatabase;
  let disk: string;
  let registry: RunningRegistry;
  let executor: RunningExecutor;
  let client: RegistryClient;
  const queuePrefix = `test-agent-skills-${process.pid}-${Date.now()}`;
  const admin = (method: string, p: string, body: unknown = {}) => call(registry.baseUrl, method, p, { token: ADMIN_TOKEN, body });
  const get = (p: string) => call(registry.baseUrl, 'GET', p);

  beforeAll(async () => {
    db = await createTestDatabase('agent_skills');
    disk = await tempRoot();
    await cp(path.join(FIXTURES, 'hello-world'), path.join(disk, 'examples', 'hello-world'), { recursive: true });
    await cp(path.join(FIXTURES, 'pdf-notes'), path.join(disk, 'documents', 'pdf-notes'), { recursive: true });
    // Issue 24: a package with no metadata (the anthropics/skills style) and one with another vendor's nested block.
    await cp(path.join(FIXTURES, 'plain-notes'), path.join(disk, 'documents', 'plain-notes'), { recursive: true });
    await cp(path.join(FIXTURES, 'vendor-blocks'), path.join(disk, 'documents', 'vendor-blocks'), { recursive: true });
    registry = await startRegistry({ databaseUrl: db.url, skillPaths: [disk], queuePrefix });
    executor = await startExecutor({ databaseUrl: db.url, queuePrefix });
    client = registryClient(grpcPort(registry));
  });

  afterAll(async () => {
    client?.close();
    await executor?.stop();
    await registry?.stop();
    await obliterateQueue(queuePrefix);
    await db?.drop();
    await rm(disk, { recursive: true, force: true });
  });

  async function publish(dir: string, query = ''): Promise<{ status: number; body: any }> {
    const response = await fetch(`${registry.baseUrl}/v1/packages${query}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/gzip' },
      body: await packPackageArchive(await readPackageDir(dir)),
    });
    return { status: response.status, body: await response.json() };
  }

  it('registers Agent Skills packages from disk: a script package without tools.yaml and an instruction-only one', async () => {
    const hello = (await get('/v1/skills/hello_world')).body;
    expect(hello).toMatchObject({
      name: 'hello_world',
      version: '1.0.0',
      status: 'REGISTERED',
      format: 'agent-skills',
      tags: ['example', 'greeting'],
      agent_skill: { name: 'hello-world', instruction_only: false },
      tools: [{ name: 'greet', qualified_name: 'hello_world__greet', script: { path: 'scripts/greet.py', interpreter: 'python3' } }],
    });
    const notes = (await get('/v1/skills/pdf_notes')).body;
    expect(notes).toMatchObject({
      version: '2.1.0',
      status: 'REGISTERED',
      format: 'agent-skills',
      tools: [],
      agent_skill: { instruction_only: true },
    });
    expect(notes.agent_skill.license).toMatch(/Proprietary/);
  });

  it('publishes a multi-tool package (201), refuses a broken one with the report (422), and serves its tools', async () => {
    const root = await tempRoot();
    const dir = await writeTextTools(root);
    const published = await publish(dir);
    expect(published).toMatchObject({
      status: 201,
      body: { outcome: 'new', version: { name: 'text_tools', version: '1.0.0', domain: 'text' } },
    });
    expect(published.body.version.tools.map((tool: { qualified_name: string }) => tool.qualified_name)).toEqual([
      'text_tools__count_words',
      'text_tools__shout',
    ]);
    expect(published.body.version.tools[0]).toMatchObject({
      idempotent: true,
      retries: 1,
      timeout_seconds: 10,
      next_tools: { on_success: ['text_tools__shout'] },
    });
    expect((await publish(dir)).status).toBe(200);

    await writeFile(path.join(dir, 'tools.yaml'), 'tools:\n  - name: count_words\n    source_file: scripts/missing.py\n');
    const broken = await publish(dir);
    expect(broken).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
    await rm(root, { recursive: true, force: true });

    const search = async (q: string) => (await get(`/v1/search?q=${encodeURIComponent(q)}`)).body.items[0];
    expect(await search('tally')).toMatchObject({ name: 'text_tools', matched_fields: ['search_hint'] });
    expect(await search('wordcounter')).toMatchObject({ name: 'text_tools', matched_fields: ['search_aliases'] });
    expect(await search('shout')).toMatchObject({ name: 'text_tools', matched_fields: expect.arrayContaining(['tool_names']) });
    const grpcView = await unary(client, 'GetSkill', { name: 'text_tools' }, bearer());
    expect(grpcView.response.skill).toMatchObject({ format: 'agent-skills' });
    expect(grpcView.response.skill.tools).toHaveLength(2);
  });

  it('promotes on every tool’s examples run through the sandbox, then executes a named tool over REST and gRPC', async () => {
    const promoted = await admin('POST', '/v1/admin/skills/text_tools/versions/1.0.0/promote');
    expect(promoted).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    const event = (await get('/v1/skills/text_tools/history')).body.items.at(-1);
    expect(
      event.evidence.examples.map((example: { tool: string; output_matches: boolean }) => [example.tool, example.output_matches]),
    ).toEqual([
      ['count_words', true],
      ['shout', true],
    ]);

    const run = await call(registry.baseUrl, 'POST', '/v1/skills/text_tools/executions?wait=20', {
      body: { tool: 'count_words', input: { text: 'a b c d' } },
    });
    expect(run).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', tool: 'count_words', output: { words: 4 } } });
    const qualified = await call(registry.baseUrl, 'POST', '/v1/skills/text_tools/executions?wait=20', {
      body: { tool: 'text_tools__shout', input: { text: 'quiet' } },
    });
    expect(qualified).toMatchObject({ status: 200, body: { status: 'SUCCEEDED', tool: 'shout', output: { text: 'QUIET' } } });

    const overGrpc = await unary(
      client,
      'ExecuteSkill',
      { name: 'text_tools', tool: 'count_words', input: struct({ text: 'x y' }), wait_seconds: 20 },
      bearer(),
    );
    expect(overGrpc.response.execution).toMatchObject({ status: 'SUCCEEDED', tool: 'count_words' });
  });

  it('refuses executions that name no tool, an unknown tool, or bad input, without storing anything', async () => {
    const execute = (body: unknown) => call(registry.baseUrl, 'POST', '/v1/skills/text_tools/executions', { body });
    expect(await execute({ input: { text: 'a' } })).toMatchObject({ status: 400, body: { code: 'VALIDATION_FAILED' } });
    expect(await execute({ tool: 'nope', input: { text: 'a' } })).toMatchObject({
      status: 404,
      body: { code: 'TOOL_NOT_FOUND', tools: ['count_words', 'shout'] },
    });
    expect(await execute({ tool: 'count_words', input: { text: '' } })).toMatchObject({ status: 422, body: { code: 'INPUT_INVALID' } });
    const unknown = await failure(unary(client, 'ExecuteSkill', { name: 'text_tools', tool: 'nope', input: struct({}) }, bearer()));
    expect(unknown.code).toBe(grpcStatus.NOT_FOUND);
    const instructions = await call(registry.baseUrl, 'POST', '/v1/admin/skills/pdf_notes/versions/2.1.0/promote', {
      token: ADMIN_TOKEN,
      body: {},
    });
    expect(instructions).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    expect(await call(registry.baseUrl, 'POST', '/v1/skills/pdf_notes/executions', { body: { input: {} } })).toMatchObject({
      status: 400,
      body: { detail: expect.stringContaining('instructions only') },
    });
  });

  it('serves each executable tool to MCP hosts as <skill>__<tool> and to tool-definition exports, with next-tools in the result', async () => {
    const mcp = new Client({ name: 'agent-skills-e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`)));
    try {
      const { tools } = await mcp.listTools();
      const names = tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['text_tools__count_words', 'text_tools__shout']));
      expect(names).not.toContain('text_tools');
      expect(names).not.toContain('pdf_notes');
      const counter = tools.find((tool) => tool.name === 'text_tools__count_words');
      expect(counter).toMatchObject({
        description: 'Count the words of a text.',
        inputSchema: { type: 'object', required: ['text'] },
        outputSchema: { type: 'object', required: ['words'] },
        annotations: { idempotentHint: true },
      });
      const result = await mcp.callTool({ name: 'text_tools__count_words', arguments: { text: 'one two' } });
      expect(result.isError).toBeFalsy();
      expect(result.structuredContent).toEqual({ words: 2 });
      expect(JSON.stringify(result._meta)).toContain('text_tools__shout');
      const bad = await mcp.callTool({ name: 'text_tools__count_words', arguments: { text: '' } });
      expect(bad.isError).toBe(true);

      // Every ACTIVE skill's instructions as a prompt (SKILL.md without its frontmatter), instruction-only ones too.
      expect(mcp.getServerCapabilities()?.prompts).toEqual({ listChanged: true });
      const { prompts } = await mcp.listPrompts();
      expect(prompts.map((prompt) => prompt.name)).toEqual(expect.arrayContaining(['pdf_notes', 'text_tools']));
      const notes = await mcp.getPrompt({ name: 'pdf_notes' });
      const text = (notes.messages[0]?.content as { text: string }).text;
      expect(text.startsWith('# PDF notes')).toBe(true);
      expect(text).not.toContain('license:');
      await expect(mcp.getPrompt({ name: 'no_such_skill' })).rejects.toThrow(/Unknown prompt/);
    } finally {
      await mcp.close();
    }
    const exported = await get('/v1/tool-definitions?format=anthropic');
    expect(exported.status).toBe(200);
    expect(JSON.stringify(exported.body)).toContain('text_tools__shout');
  });

  it('serves every stored file byte for byte with its sha256, over REST and gRPC', async () => {
    const listed = (await get('/v1/skills/hello_world/versions/1.0.0/files')).body;
    expect(listed.files.map((file: { path: string }) => file.path)).toEqual(['SKILL.md', 'scripts/greet.py']);
    for (const entry of listed.files as { path: string; sha256: string; size: number }[]) {
      const response = await fetch(`${registry.baseUrl}/v1/skills/hello_world/versions/1.0.0/files/${entry.path}`);
      const bytes = Buffer.from(await response.arrayBuffer());
      expect(bytes.equals(await readFile(path.join(FIXTURES, 'hello-world', entry.path)))).toBe(true);
      expect(createHash('sha256').update(bytes).digest('hex')).toBe(entry.sha256);
      expect(response.headers.get('etag')).toBe(`"sha256:${entry.sha256}"`);
    }
    const markdown = await fetch(`${registry.baseUrl}/v1/skills/hello_world/versions/1.0.0/files/SKILL.md`);
    expect(markdown.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    expect((await get('/v1/skills/hello_world/versions/1.0.0/files/nope.md')).body).toMatchObject({
      status: 404,
      code: 'PACKAGE_FILE_NOT_FOUND',
    });
    expect((await get('/v1/skills/hello_world/versions/1.0.0/files/../definition.json')).status).toBe(404);

    const overGrpc = await unary(client, 'GetPackageFile', { name: 'hello_world', version: '1.0.0', path: 'SKILL.md' }, bearer());
    expect(overGrpc.response).toMatchObject({ path: 'SKILL.md', media_type: 'text/markdown' });
    expect(Buffer.from(overGrpc.response.content).equals(await readFile(path.join(FIXTURES, 'hello-world', 'SKILL.md')))).toBe(true);
    const files = await unary(client, 'ListPackageFiles', { name: 'hello_world', version: '1.0.0' }, bearer());
    expect(files.response.files).toHaveLength(2);
  });

  // Followed, a link out of the package made any file the registry may read (its own /proc/self/environ: its tokens and
  // database password; /etc/shadow) a stored file of the package, served to anyone at …/files/{path}.
  it('refuses a disk package with a symbolic link to a file outside it; follows one to a file of its own', async () => {
    const notes = (name: string) =>
      `---\nname: ${name}\ndescription: Notes. Use when the user asks for notes.\nmetadata:\n  dcc-mcp:\n    version: "1.0.0"\n---\n\n# Notes\n`;
    await mkdir(path.join(disk, 'links', 'outside-notes'), { recursive: true });
    await writeFile(path.join(disk, 'links', 'outside-notes', 'SKILL.md'), notes('outside-notes'));
    await symlink('/proc/self/environ', path.join(disk, 'links', 'outside-notes', 'environ.txt'));
    const refused = await admin('POST', '/v1/admin/skills', { path: path.join(disk, 'links', 'outside-notes') });
    expect(refused.body).toMatchObject({ outcome: 'refused', version: null });
    expect(refused.body.message).toMatch(/^PACKAGE_LINK_OUTSIDE: 'environ.txt' is a symbolic link to a file outside the package/);
    expect((await get('/v1/skills/outside_notes')).status).toBe(404);

    await mkdir(path.join(disk, 'links', 'inside-notes', 'docs'), { recursive: true });
    await writeFile(path.join(disk, 'links', 'inside-notes', 'SKILL.md'), notes('inside-notes'));
    await writeFile(path.join(disk, 'links', 'inside-notes', 'docs', 'guide.md'), 'the guide');
    await symlink(path.join('docs', 'guide.md'), path.join(disk, 'links', 'inside-notes', 'guide.md'));
    const registered = await admin('POST', '/v1/admin/skills', { path: path.join(disk, 'links', 'inside-notes') });
    expect(registered).toMatchObject({ status: 201, body: { outcome: 'new' } });
    const served = await fetch(`${registry.baseUrl}/v1/skills/inside_notes/versions/1.0.0/files/guide.md`);
    expect(await served.text()).toBe('the guide');
  });

  it('applies the semver rule per tool: a removed tool or a narrowed input needs a major version', async () => {
    const root = await tempRoot();
    const dir = await writeTextTools(root, '1.1.0');
    const tools = path.join(dir, 'tools.yaml');
    const original = await readFile(tools, 'utf8');
    await writeFile(
      tools,
      original.replace(
        '      required: [text]\n      additionalProperties: false',
        '      required: [text, language]\n      additionalProperties: false',
      ),
    );
    await writeFile(
      tools,
      (await readFile(tools, 'utf8')).replace(
        '        text: { type: string, minLength: 1 }',
        '        text: { type: string, minLength: 1 }\n        language: { type: string }',
      ),
    );
    await writeFile(
      tools,
      (await readFile(tools, 'utf8')).replace('- input: { text: "one two three" }', '- input: { text: "one two three", language: en }'),
    );
    const narrowed = await publish(dir);
    expect(narrowed).toMatchObject({ status: 422, body: { code: 'PACKAGE_INVALID' } });
    expect(narrowed.body.report).toContainEqual(
      expect.objectContaining({
        category: 'compatibility',
        file: 'tools.yaml',
        path: expect.stringMatching(/^\/tools\/count_words\/input/),
      }),
    );
    await writeFile(tools, original.slice(0, original.indexOf('  - name: shout')));
    const removed = await publish(dir);
    expect(removed.body.report).toContainEqual(
      expect.objectContaining({ message: expect.stringContaining('TOOL_REMOVED'), path: '/tools/shout' }),
    );
    const major = await writeTextTools(await tempRoot(), '2.0.0');
    await writeFile(path.join(major, 'tools.yaml'), original.slice(0, original.indexOf('  - name: shout')));
    expect((await publish(major)).status).toBe(201);
    await rm(root, { recursive: true, force: true });
  });

  it('registers a ClawHub-style package unchanged and serves its metadata back verbatim (issue 24)', async () => {
    const vendor = (await get('/v1/skills/vendor_blocks')).body;
    expect(vendor).toMatchObject({ status: 'REGISTERED', version: '1.2.0', format: 'agent-skills' });
    expect(vendor.agent_skill.metadata).toEqual({
      author: 'fixture-team',
      'dcc-mcp': { dcc: 'python', version: '1.2.0', tags: 'example, vendor, compatibility' },
      openclaw: {
        requires: { env: ['FIXTURE_API_KEY'], bins: ['python3'] },
        primaryEnv: 'FIXTURE_API_KEY',
        emoji: '🧪',
        homepage: 'https://example.invalid/vendor-blocks',
        install: [{ kind: 'node', package: 'prettier', bins: ['prettier'] }],
      },
    });
    // Published over the API as well: 201/200 with the vendor block as a warning, never a 422.
    const dir = path.join(await tempRoot(), 'vendor-blocks');
    await cp(path.join(FIXTURES, 'vendor-blocks'), dir, { recursive: true });
    await writeFile(path.join(dir, 'SKILL.md'), (await readFile(path.join(dir, 'SKILL.md'), 'utf8')).replace('"1.2.0"', '"1.2.1"'));
    const published = await publish(dir);
    expect(published.status).toBe(201);
    expect(published.body.version.validation).toContainEqual(expect.objectContaining({ severity: 'warning', path: '/metadata/openclaw' }));
    for (const [name, version] of [
      ['plain_notes', '1.0.0'],
      ['vendor_blocks', '1.2.1'],
    ]) {
      const promoted = await admin('POST', `/v1/admin/skills/${name}/versions/${version}/promote`);
      expect(promoted).toMatchObject({ status: 200, body: { status: 'ACTIVE' } });
    }
  });

  describe('the MCP Skills extension (SEP-2640), read with the official SDK client', () => {
    for (const protocol of ['2025-11-25', '2026-07-28'] as const) {
      it(`serves skills/list, skills/get, verified files and directory reads (${protocol})`, async () => {
        const mcp = new Client(
          { name: 'skills-e2e', version: '1.0.0' },
          protocol === '2026-07-28' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
        );
        await mcp.connect(new StreamableHTTPClientTransport(new URL(`${registry.baseUrl}/mcp`)));
        try {
          const skills = new SkillsClient(mcp);
          expect(skills.supported).toBe(true);
          expect(skills.directoryRead).toBe(true);
          const listing = await skills.list();
          expect(listing.invalid).toEqual([]);
          const byName = new Map(listing.skills.map((skill) => [String(skill.frontmatter.name), skill]));
          // ACTIVE packages whose SKILL.md is a valid entry as written, as Agent Skills names; REGISTERED ones are not
          // served. Those whose metadata nests (seed 004's metadata.dcc-mcp, another vendor's block) are not listed:
          // the entry must be the file's frontmatter verbatim, and SDK clients refuse a metadata that is not a string map.
          expect([...byName.keys()].sort()).toEqual(['pdf-notes', 'plain-notes']);
          expect(byName.has('hello-world')).toBe(false);
          // Every listed skill's every file reads back verified: sizes, digests, and SKILL.md's frontmatter equal to the
          // entry's, key for key — no key added (no `metadata: {}` for a file without one), none dropped.
          for (const skill of listing.skills) {
            for (const resource of skill.resources as { uri: string }[]) await skills.read(skill, resource.uri);
          }
          expect(byName.get('plain-notes')?.frontmatter).toEqual({
            name: 'plain-notes',
            description: expect.stringMatching(/^Turn meeting transcripts/),
            license: 'Complete terms in LICENSE.txt',
          });
          const notes = byName.get('pdf-notes') as (typeof listing.skills)[number];
          expect(notes.uri).toBe('skill://agent-skills/pdf-notes/SKILL.md');
          expect(notes.frontmatter).toMatchObject({
            name: 'pdf-notes',
            license: expect.stringMatching(/Proprietary/),
            metadata: { author: 'example-org', version: '2.1.0' },
          });

          // Every file, with digests that match the bytes the client reads (the SDK verifies size and sha256).
          const stored = (await get('/v1/skills/pdf_notes/versions/2.1.0/files')).body.files as { path: string; sha256: string }[];
          expect(
            (notes.resources as { uri: string; digest: string }[]).map((r) => [
              r.uri.replace('skill://agent-skills/pdf-notes/', ''),
              r.digest,
            ]),
          ).toEqual(stored.map((file) => [file.path, `sha256:${file.sha256}`]));
          const skillMd = await skills.read(notes);
          expect(skillMd.text ?? '').toBe(await readFile(path.join(FIXTURES, 'pdf-notes', 'SKILL.md'), 'utf8'));
          for (const file of stored) await skills.read(notes, file.path);

          expect((await skills.get(notes.uri)).skill.uri).toBe(notes.uri);
          const root = await skills.readDirectory('skill://agent-skills/pdf-notes');
          expect(root.resources.map((resource) => [resource.uri.split('/').pop(), resource.mimeType])).toEqual(
            expect.arrayContaining([
              ['SKILL.md', 'text/markdown'],
              ['scripts', 'inode/directory'],
            ]),
          );
          // A nested-metadata package is neither listed nor an entry for skills/get (an invalid-params error, not an
          // internal one); its tools are served as usual.
          await expect(skills.get('skill://agent-skills/vendor-blocks/SKILL.md')).rejects.toThrow(/No skill is served/);
          expect((await mcp.listTools()).tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['text_tools__count_words']));
          await expect(skills.get('skill://agent-skills/nope/SKILL.md')).rejects.toThrow();
          // A malformed percent-escape names nothing: a not-found error like any unknown path, never an internal one.
          for (const uri of ['skill://agent-skills/pdf-notes/%ZZ', 'skill://agent-skills/pdf-notes/scripts/%C3']) {
            for (const method of ['resources/read', 'resources/directory/read']) {
              const answer = await mcp.request({ method, params: { uri } } as never, z.looseObject({})).catch((error: unknown) => error);
              expect(answer).toBeInstanceOf(ProtocolError);
              expect((answer as ProtocolError).code).not.toBe(-32603);
              expect((answer as ProtocolError).message).not.toMatch(/URI malformed/);
            }
          }
        } finally {
          await mcp.close();
        }
      });
    }
  });
});
