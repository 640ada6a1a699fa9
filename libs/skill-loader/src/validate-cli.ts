import { pathToFileURL } from 'node:url';
import { SkillPackageLoader } from './loader.js';
import { findSkillPackages } from './package-files.js';
import { formatPackageReport } from './report.js';

/**
 * What a skill author runs locally: `node dist/libs/skill-loader/src/validate-cli.js <dir>...`. Each <dir> is a
 * package or a directory holding packages. Prints a report per package; exits 1 when any package has an error
 * (or a directory holds no package), 2 on usage errors.
 */
export async function main(argv: string[], out: (line: string) => void = console.log): Promise<number> {
  const dirs = argv.filter((arg) => !arg.startsWith('-'));
  if (dirs.length === 0 || argv.includes('--help') || argv.includes('-h')) {
    out('usage: validate-cli <package-or-catalog-dir>...');
    return dirs.length === 0 ? 2 : 0;
  }
  const loader = new SkillPackageLoader();
  let failed = false;
  for (const dir of dirs) {
    const packages = await findSkillPackages([dir]);
    if (packages.length === 0) {
      out(`NOTHING  ${dir}: no skill package here (a package holds definition.json, SKILL.md, schema.ts, handler.ts)`);
      failed = true;
    }
    for (const packagePath of packages) {
      const loaded = await loader.load(packagePath);
      out(formatPackageReport(loaded));
      failed ||= !loaded.valid;
    }
  }
  return failed ? 1 : 0;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(error);
      process.exitCode = 2;
    },
  );
}
