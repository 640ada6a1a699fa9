import { posix } from 'node:path';
import type { ScriptInterpreter } from './types.js';

/** Script types the registry's executors run, by extension. */
const INTERPRETERS: Readonly<Record<string, ScriptInterpreter>> = {
  '.py': 'python3',
  '.sh': 'bash',
  '.bash': 'bash',
  '.js': 'node',
  '.mjs': 'node',
  '.cjs': 'node',
};

/** Script types seed 004 knows that need a host this platform does not have (listed, not executable). */
const FOREIGN_SCRIPT_TYPES: Readonly<Record<string, string>> = {
  '.bat': 'a Windows batch script (cmd /C)',
  '.cmd': 'a Windows batch script (cmd /C)',
  '.ps1': 'a PowerShell script',
  '.mel': 'a Maya MEL script (runs inside Maya)',
  '.ms': 'a MaxScript (runs inside 3ds Max)',
  '.lua': 'a Lua script (runs inside its DCC host)',
  '.hscript': 'a Houdini hscript (runs inside Houdini)',
};

/** A tool entry point in `scripts/`. */
export interface ScriptFile {
  /** Package-relative path, e.g. `scripts/greet.py`. */
  path: string;
  /** File name without its extension: the tool name it backs. */
  stem: string;
  interpreter: ScriptInterpreter | null;
}

/**
 * The tool entry points of a package: files directly in `scripts/` with a known script extension. Files in
 * subfolders (`scripts/services/`, `scripts/utils/`) are modules the entry points import, and names starting with
 * `_` (`__init__.py`) are not entry points either (seed 004, "Complex Skill Architecture").
 */
export function entryPointScripts(files: readonly string[]): ScriptFile[] {
  return files
    .filter((file) => /^scripts\/[^/]+$/.test(file))
    .filter((file) => !posix.basename(file).startsWith('_') && isScriptPath(file))
    .map((file) => ({ path: file, stem: stemOf(file), interpreter: interpreterFor(file) }));
}

/** The interpreter that runs `path` here, or null. */
export function interpreterFor(path: string): ScriptInterpreter | null {
  return INTERPRETERS[posix.extname(path).toLowerCase()] ?? null;
}

/** Why `path` cannot run here (null when it can). */
export function notExecutableReason(path: string): string | null {
  const extension = posix.extname(path).toLowerCase();
  if (INTERPRETERS[extension]) return null;
  const foreign = FOREIGN_SCRIPT_TYPES[extension];
  const runnable = Object.keys(INTERPRETERS).join(', ');
  return foreign
    ? `${path} is ${foreign}: no interpreter for ${extension} on this platform (runnable here: ${runnable})`
    : `${path} has no script interpreter on this platform (runnable here: ${runnable})`;
}

/** How a tool's script was found (seed 004 "Script Lookup Priority"). */
export type ScriptLookup =
  { found: true; path: string; rule: 'source_file' | 'stem' | 'single'; alternatives: string[] } | { found: false; reason: string };

/**
 * Seed 004's lookup order for the script backing a tool: (1) an explicit `source_file` (already resolved by the
 * caller), (2) a script in `scripts/` whose stem is the tool name (an executable one first when several match),
 * (3) the package's only script backs every tool, (4) none: the tool is listed but not executable.
 */
export function lookUpScript(toolName: string, sourceFile: string | null, scripts: readonly ScriptFile[]): ScriptLookup {
  if (sourceFile !== null) return { found: true, path: sourceFile, rule: 'source_file', alternatives: [] };
  const byStem = scripts.filter((script) => script.stem === toolName);
  if (byStem.length > 0) {
    const ranked = [...byStem].sort((a, b) => Number(b.interpreter !== null) - Number(a.interpreter !== null));
    return { found: true, path: ranked[0].path, rule: 'stem', alternatives: ranked.slice(1).map((script) => script.path) };
  }
  if (scripts.length === 1) return { found: true, path: scripts[0].path, rule: 'single', alternatives: [] };
  return {
    found: false,
    reason:
      scripts.length === 0
        ? `no script backs tool '${toolName}': it has no source_file and the package has no scripts/`
        : `no script backs tool '${toolName}': it has no source_file, no scripts/${toolName}.* exists, and scripts/ holds ${scripts.length} scripts (${scripts.map((script) => script.path).join(', ')})`,
  };
}

function isScriptPath(path: string): boolean {
  const extension = posix.extname(path).toLowerCase();
  return extension in INTERPRETERS || extension in FOREIGN_SCRIPT_TYPES;
}

function stemOf(path: string): string {
  const base = posix.basename(path);
  return base.slice(0, base.length - posix.extname(base).length);
}
