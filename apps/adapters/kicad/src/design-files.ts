import { inputRejected, safeRelativeName } from '../../common/src/index.js';
import type { ToolRunContext } from '../../common/src/index.js';

/** A file of the design given by name and contents (a sub-sheet). */
interface DesignFile {
  name: string;
  content: string;
}

/** The schematic side of a call: root sheet, sub-sheets and project settings. */
export interface SchematicFiles {
  schematic: string;
  sheets?: DesignFile[];
  project?: string;
}

const DEFAULT_PROJECT = 'design';
const PROJECT_NAME = /^[A-Za-z0-9_+\-.]{1,100}$/;
const SHEET_FILE_PROPERTY = /\(property\s+"Sheet ?file"\s+"((?:[^"\\]|\\.)*)"/gi;

/**
 * The project a schematic belongs to, as its symbol and sheet instances record it (`(instances (project "name" ...`),
 * so the files get the names KiCad expects; `design` when there is none or it is not a plain file name.
 */
export function projectNameOf(schematic: string | undefined): string {
  const match = schematic ? /\(instances\s*\(project\s+"((?:[^"\\]|\\.)*)"/.exec(schematic) : null;
  const name = match?.[1];
  return name && PROJECT_NAME.test(name) && !name.startsWith('.') ? name : DEFAULT_PROJECT;
}

/** Sheet files a schematic refers to through its hierarchical sheets (`Sheetfile` properties), unescaped. */
export function referencedSheetFiles(schematic: string): string[] {
  const names: string[] = [];
  for (const match of schematic.matchAll(SHEET_FILE_PROPERTY)) names.push(match[1].replace(/\\(.)/g, '$1'));
  return names;
}

/** The first S-expression token of a file, to tell a schematic from a board or from something else entirely. */
function headOf(content: string): string | null {
  return /^\s*\(\s*([a-z_]+)/.exec(content)?.[1] ?? null;
}

/**
 * Write the schematic files of a call: the root as `<project>.kicad_sch`, every sub-sheet under its own checked
 * relative name, and the project file. Every sheet a schematic refers to must be among `sheets` (found by name),
 * so KiCad never reads a file outside the scratch directory.
 */
export async function writeSchematic(context: ToolRunContext, files: SchematicFiles, projectName: string): Promise<string> {
  if (headOf(files.schematic) !== 'kicad_sch') {
    throw inputRejected(
      "'schematic' is not a KiCad schematic: it must be the text of a .kicad_sch file, starting with '(kicad_sch' " +
        '(KiCad 6 or later; legacy .sch files are not supported)',
    );
  }
  const root = `${projectName}.kicad_sch`;
  const sheets = new Map<string, DesignFile>();
  for (const [index, sheet] of (files.sheets ?? []).entries()) {
    const name = safeRelativeName(sheet.name, `sheets[${index}].name`);
    if (!name.endsWith('.kicad_sch')) throw inputRejected(`sheets[${index}].name '${sheet.name}' must end with .kicad_sch`);
    if (name === root) throw inputRejected(`sheets[${index}].name '${sheet.name}' is the root schematic's own name`);
    if (headOf(sheet.content) !== 'kicad_sch') throw inputRejected(`sheets[${index}] ('${sheet.name}') is not a KiCad schematic`);
    if (sheets.has(name)) throw inputRejected(`sheets[${index}].name '${sheet.name}' is given twice`);
    sheets.set(name, sheet);
  }
  const check = (content: string, from: string) => {
    for (const reference of referencedSheetFiles(content)) {
      const name = safeRelativeName(reference, `sheet file '${reference}' referenced by ${from}`);
      if (!sheets.has(name) && name !== root) {
        throw inputRejected(
          `${from} refers to sheet file '${reference}', which is not among 'sheets' (given: ${[...sheets.keys()].join(', ') || 'none'})`,
        );
      }
    }
  };
  check(files.schematic, "'schematic'");
  for (const [name, sheet] of sheets) check(sheet.content, `sheet '${name}'`);

  await context.writeInput(root, files.schematic, 'schematic');
  for (const [name, sheet] of sheets) await context.writeInput(name, sheet.content, 'sheets name');
  if (files.project !== undefined) await writeProject(context, files.project, projectName);
  return root;
}

/** Write the board as `<project>.kicad_pcb`. */
export async function writeBoard(context: ToolRunContext, board: string, projectName: string): Promise<string> {
  if (headOf(board) !== 'kicad_pcb') {
    throw inputRejected(
      "'board' is not a KiCad board: it must be the text of a .kicad_pcb file, starting with '(kicad_pcb' " +
        '(KiCad 6 or later; legacy .brd files are not supported)',
    );
  }
  const name = `${projectName}.kicad_pcb`;
  await context.writeInput(name, board, 'board');
  return name;
}

/** Write the project file (`<project>.kicad_pro`, JSON) after checking that it is a JSON object. */
export async function writeProject(context: ToolRunContext, project: string, projectName: string): Promise<string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(project);
  } catch (error) {
    throw inputRejected(`'project' is not valid JSON (a .kicad_pro file is JSON): ${(error as Error).message}`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw inputRejected("'project' must be a JSON object");
  const name = `${projectName}.kicad_pro`;
  await context.writeInput(name, project, 'project');
  return name;
}
