import { relative, sep } from 'node:path';

/**
 * One-line account of an error thrown while importing a package file: its name and message, package paths
 * made relative, and the first place inside the package where it happened. Errors come from another
 * realm (jiti evaluates in the main context), so nothing here relies on `instanceof Error`.
 */
export function describeLoadError(
  error: unknown,
  packageDir: string,
  mapPosition?: (file: string, line: number, column: number) => { line: number; column: number } | null,
): string {
  const record = error !== null && typeof error === 'object' ? (error as { name?: unknown; message?: unknown; stack?: unknown }) : null;
  const name = typeof record?.name === 'string' ? record.name : 'Error';
  let message = typeof record?.message === 'string' ? record.message : String(error);
  message = shortenPaths(message, packageDir)
    .replace(/\s*\n\s*/g, ' ')
    .replace(/\s{2,}/g, ' ')
    .trim();
  // jiti reports syntax errors as "ParseError: <reason> <file>:<line>:<column>".
  message = message.replace(/^(\w*Error: .*?) ((?:[\w.-]+\/)*[\w.-]+\.[cm]?[jt]sx?:\d+:\d+)$/, '$1 (at $2)');
  const location = typeof record?.stack === 'string' ? firstPackageFrame(record.stack, packageDir, mapPosition) : null;
  const prefix = message.startsWith(`${name}:`) || /^\w*Error: /.test(message) ? '' : `${name}: `;
  return `${prefix}${message}${location && !message.includes(location) ? ` (at ${location})` : ''}`;
}

function firstPackageFrame(
  stack: string,
  packageDir: string,
  mapPosition?: (file: string, line: number, column: number) => { line: number; column: number } | null,
): string | null {
  const prefix = packageDir.endsWith(sep) ? packageDir : packageDir + sep;
  for (const line of stack.split('\n').slice(1)) {
    const match = /\(?((?:file:\/\/)?\/[^():]+):(\d+):(\d+)\)?\s*$/.exec(line.trim());
    if (!match) continue;
    const file = match[1].replace(/^file:\/\//, '');
    if (!file.startsWith(prefix)) continue;
    const mapped = mapPosition?.(file, Number(match[2]), Number(match[3])) ?? { line: Number(match[2]), column: Number(match[3]) };
    return `${relative(packageDir, file).split(sep).join('/')}:${mapped.line}:${mapped.column}`;
  }
  return null;
}

function shortenPaths(text: string, packageDir: string): string {
  const prefix = packageDir.endsWith(sep) ? packageDir : packageDir + sep;
  return text.split(prefix).join('');
}
