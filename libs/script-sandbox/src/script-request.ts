import { stat } from 'node:fs/promises';
import path from 'node:path';
import { interpreterFor, supportedExtensions, type Interpreter } from './interpreters.js';
import type { ScriptLimits } from './script-limits.js';

/** One run of one script tool. */
export interface ScriptRunRequest {
  /** The unpacked package (its files are read-only for the script). */
  packageDir: string;
  /** The script, relative to packageDir; the extension picks the interpreter. */
  script: string;
  /** Written to the script's stdin as JSON. */
  input: unknown;
  /** Hard limit: the whole process group is killed when it passes. */
  timeoutMs: number;
  /** Cancellation: SIGTERM to the script, SIGKILL to everything `cancelGraceMs` later (default 2000). */
  signal?: AbortSignal;
  cancelGraceMs?: number;
  /** Extra variables, e.g. SKILL_NAME; PATH, HOME, LANG and TMPDIR cannot be replaced. */
  env?: Record<string, string>;
  limits?: ScriptLimits;
}

/** The script of a request, checked: its interpreter and normalised path, or why it cannot run. */
export async function checkScript(request: ScriptRunRequest): Promise<{ interpreter: Interpreter; script: string } | { problem: string }> {
  const interpreter = interpreterFor(request.script);
  if (interpreter === null)
    return { problem: `No interpreter for '${request.script}': expected one of ${supportedExtensions().join(', ')}` };
  const script = packageRelativePath(request.script);
  if (script === null) return { problem: `Script path '${request.script}' must be relative and stay inside the package` };
  if (!(await isFile(path.join(request.packageDir, script)))) return { problem: `Script '${script}' is not a file of the package` };
  return { interpreter, script };
}

/** `script` as a normalised POSIX path inside the package, or null when it is absolute or climbs out. */
export function packageRelativePath(script: string): string | null {
  if (script === '' || script.includes('\0') || path.posix.isAbsolute(script)) return null;
  const normalised = path.posix.normalize(script);
  if (normalised === '..' || normalised.startsWith('../') || normalised === '.') return null;
  return normalised;
}

async function isFile(file: string): Promise<boolean> {
  try {
    return (await stat(file)).isFile();
  } catch {
    return false;
  }
}
