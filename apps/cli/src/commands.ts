import { mkdir, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { manifestHash, manifestOf, packPackageArchive, readPackageDir } from '#package-store/index.js';
import { SkillPackageLoader, formatPackageReport } from '#skill-loader/index.js';
import { isAgentSkillsPackage, loadAgentSkillPackage } from '#agent-skills/index.js';
import { agentSkillsSpelling } from '#skill-loader/skill-md.js';
import { scaffoldAgentSkillsFiles, scaffoldFiles } from './scaffold.js';

/** What a command prints: lines for people, or one JSON value with --json. */
export interface Output {
  line(text: string): void;
  json(value: unknown): void;
}

/** `init <domain>/<name>`: a package that passes validation, with a test of its own (its examples, for Agent Skills). */
export async function init(target: string, options: { dir: string; format?: string }, out: Output, json: boolean): Promise<number> {
  const format = options.format ?? 'typescript';
  if (format !== 'typescript' && format !== 'agent-skills') {
    out.line(`--format '${format}' is not one of typescript, agent-skills`);
    return 2;
  }
  const scaffold = format === 'agent-skills' ? scaffoldAgentSkillsFiles : scaffoldFiles;
  const match = /^([a-z][a-z0-9_]*)\/([a-z][a-z0-9_]*)$/.exec(target);
  if (!match) {
    out.line(`'${target}' is not <domain>/<name> (lower case letters, digits and _)`);
    return 2;
  }
  const [, domain, name] = match as unknown as [string, string, string];
  // Agent Skills requires the directory to carry the SKILL.md name, which is spelt with hyphens.
  const dir = path.resolve(options.dir, domain, format === 'agent-skills' ? agentSkillsSpelling(name) : name);
  if (await stat(dir).catch(() => null)) {
    out.line(`${dir} exists already; choose another name or remove it`);
    return 1;
  }
  for (const [file, text] of Object.entries(scaffold(domain, name))) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  if (json) out.json({ created: dir, format, files: Object.keys(scaffold(domain, name)) });
  else out.line(`created ${dir}\nnext: skill-registry validate ${path.relative(process.cwd(), dir) || '.'}`);
  return 0;
}

/**
 * `validate <dir>`: the registry's validation report; non-zero when the package has errors, or with
 * `strict` when it has any finding at all (its warnings count as errors; the registry itself still
 * registers a package with warnings, so strictness is the author's choice, not a second rule set).
 */
export async function validate(dir: string, out: Output, json: boolean, options: { strict?: boolean } = {}): Promise<number> {
  const loaded = await loadEitherFormat(path.resolve(dir));
  const warnings = loaded.issues.filter((issue) => issue.severity === 'warning').length;
  const valid = loaded.valid && !(options.strict && warnings > 0);
  if (json)
    out.json({
      name: loaded.identity.name,
      version: loaded.identity.version,
      valid,
      ...(options.strict ? { strict: true, valid_without_strict: loaded.valid } : {}),
      content_hash: loaded.contentHash,
      issues: loaded.issues,
    });
  else {
    out.line(formatPackageReport(loaded));
    if (options.strict && loaded.valid && warnings > 0)
      out.line(`--strict: ${warnings} warning${warnings === 1 ? '' : 's'} counted as errors; not valid`);
  }
  return valid ? 0 : 1;
}

/** A package of either format, as the registry's intake reads it: the report's fields and, for Agent Skills, the package. */
export async function loadEitherFormat(packageDir: string) {
  const entries = await readdir(packageDir).catch(() => [] as string[]);
  if (!isAgentSkillsPackage(entries)) {
    const loaded = await new SkillPackageLoader({ cacheDir: false }).load(packageDir);
    return { ...loaded, agentSkill: null };
  }
  const result = await loadAgentSkillPackage(packageDir);
  return {
    packagePath: packageDir,
    identity: { name: result.package?.registryName ?? path.basename(packageDir), version: result.package?.version ?? '0.0.0-draft' },
    valid: result.valid,
    issues: result.issues,
    contentHash: manifestHash(manifestOf(await readPackageDir(packageDir))),
    agentSkill: result.package,
  };
}

/** `pack <dir>`: the archive the registry accepts, and its content hash. */
export async function pack(dir: string, options: { output?: string }, out: Output, json: boolean): Promise<number> {
  const files = await readPackageDir(path.resolve(dir));
  const contentHash = manifestHash(manifestOf(files));
  const output = path.resolve(options.output ?? `${path.basename(path.resolve(dir))}.tar.gz`);
  const archive = await packPackageArchive(files);
  await writeFile(output, archive);
  if (json) out.json({ archive: output, bytes: archive.length, files: files.length, content_hash: contentHash });
  else out.line(`${output}: ${files.length} files, ${archive.length} bytes\ncontent hash ${contentHash}`);
  return 0;
}

/** `publish <dir>`: packs and publishes; prints the outcome, and the validation report on 422. */
export async function publish(
  dir: string,
  options: { registry: string; token?: string; dryRun?: boolean },
  out: Output,
  json: boolean,
): Promise<number> {
  const token = options.token ?? process.env.SKILL_REGISTRY_TOKEN;
  if (!token) {
    out.line('a token is needed: --token <token> or SKILL_REGISTRY_TOKEN');
    return 2;
  }
  const archive = await packPackageArchive(await readPackageDir(path.resolve(dir)));
  const url = new URL(`/v1/packages${options.dryRun ? '?dry_run=true' : ''}`, options.registry);
  let response: Response;
  try {
    response = await fetch(url, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/gzip' },
      body: archive,
    });
  } catch (error) {
    out.line(`cannot reach ${url.origin}: ${(error as Error).message}`);
    return 1;
  }
  const body = (await response.json().catch(() => null)) as Record<string, unknown> | null;
  if (json) out.json({ status: response.status, ...body });
  else if (response.ok) {
    const version = body?.version as { name?: string; version?: string; status?: string; content_hash?: string } | undefined;
    out.line(
      body?.outcome === 'valid'
        ? `valid: ${body.name} ${body.version} (${body.content_hash}); nothing stored (dry run)`
        : `${body?.outcome === 'new' ? 'published' : 'already published'}: ${version?.name} ${version?.version} ${version?.status} (${version?.content_hash})`,
    );
  } else {
    out.line(`refused (${response.status} ${String(body?.code ?? '')}): ${String(body?.detail ?? '')}`);
    for (const issue of (body?.report as { severity: string; file?: string; message: string; hint?: string }[] | undefined) ?? []) {
      out.line(`  ${issue.severity.padEnd(7)} ${issue.file ?? ''} ${issue.message}${issue.hint ? ` (${issue.hint})` : ''}`);
    }
  }
  return response.ok ? 0 : 1;
}
