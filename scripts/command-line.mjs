// How the project's scripts (the drills, check:packages) read their command line: node:util's parseArgs, strict, plus
// --help (-h), which prints the usage and exits 0; a mistake (an unknown option, a missing value, a stray argument) is
// told in one line with the usage, exit 2, never as a stack trace.
import { parseArgs } from 'node:util';

/** parseArgs(`config`) with --help and one-line errors; `usage` is printed for both. */
export function readCommandLine(usage, config = {}) {
  let parsed;
  try {
    parsed = parseArgs({ ...config, options: { ...config.options, help: { type: 'boolean', short: 'h' } }, strict: true });
  } catch (error) {
    console.error(`${error.message}\n${usage}`);
    process.exit(2);
  }
  if (parsed.values.help) {
    console.log(usage);
    process.exit(0);
  }
  delete parsed.values.help;
  return parsed;
}
