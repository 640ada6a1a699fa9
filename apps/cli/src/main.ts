#!/usr/bin/env node
import { realpathSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import { init, pack, publish, validate, type Output } from './commands.js';
import { testPackage } from './package-test.js';

/** The skill author's command line: scaffold, validate, test, pack and publish skill packages. */
export async function main(argv: string[], write: (text: string) => void = (text) => process.stdout.write(text)): Promise<number> {
  let code = 0;
  const out: Output = { line: (text) => write(`${text}\n`), json: (value) => write(`${JSON.stringify(value, null, 2)}\n`) };
  const program = new Command('skill-registry')
    .description('Author and publish skill packages for the skill registry')
    .option('--json', 'print one JSON value (for scripts) instead of text')
    .exitOverride()
    .configureOutput({ writeOut: write, writeErr: write });
  const json = () => Boolean(program.opts().json);
  program
    .command('init')
    .description('scaffold a package that passes validation, with a test of its own')
    .argument('<domain/name>', 'e.g. firmware/check_stack_usage')
    .option('--dir <dir>', 'catalog root to create it in', '.')
    .option('--format <format>', 'typescript (definition.json, handler.ts) or agent-skills (SKILL.md, tools.yaml, a script)', 'typescript')
    .action(async (target: string, options: { dir: string; format: string }) => void (code = await init(target, options, out, json())));
  program
    .command('validate')
    .description("print the package's validation report; exit 1 on errors")
    .argument('<dir>', 'package directory')
    .option('--strict', 'count warnings as errors (exit 1 on any finding), e.g. before publishing from CI')
    .action(async (dir: string, options: { strict?: boolean }) => void (code = await validate(dir, out, json(), options)));
  program
    .command('test')
    .description("run the package's own tests and its declared examples through the executor's sandbox, locally, without a registry")
    .argument('<dir>', 'package directory')
    .option('--no-unit', "skip the package's own *.spec.ts tests")
    .option('--no-examples', 'skip the declared examples')
    .option('--tool-adapters <list>', 'running tool adapters, adapter=url,… (default: $TOOL_ADAPTERS), for examples that need tools')
    .action(
      async (dir: string, options: { unit: boolean; examples: boolean; toolAdapters?: string }) =>
        void (code = await testPackage(dir, options, out, json())),
    );
  program
    .command('pack')
    .description('write the package archive the registry accepts, and print its content hash')
    .argument('<dir>', 'package directory')
    .option('-o, --output <file>', 'archive to write (default: <name>.tar.gz)')
    .action(async (dir: string, options: { output?: string }) => void (code = await pack(dir, options, out, json())));
  program
    .command('publish')
    .description('pack and publish to a registry; prints the outcome, and the validation report when refused')
    .argument('<dir>', 'package directory')
    .requiredOption('--registry <url>', 'registry base URL, e.g. http://localhost:3000')
    .option('--token <token>', 'publisher or admin token (default: $SKILL_REGISTRY_TOKEN)')
    .option('--dry-run', 'validate on the registry without storing')
    .action(
      async (dir: string, options: { registry: string; token?: string; dryRun?: boolean }) =>
        void (code = await publish(dir, options, out, json())),
    );
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    throw error;
  }
  return code;
}

// Run as a program (also through the npm bin symlink), not when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main(process.argv.slice(2)).then(
    (code) => (process.exitCode = code),
    (error: unknown) => {
      console.error((error as Error).message ?? error);
      process.exitCode = 1;
    },
  );
}
