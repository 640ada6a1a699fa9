import { diagnosticsOf, inputRejected, safeRelativeName, ToolFailure } from '../../common/src/index.js';
import type { Program, ToolRunContext } from '../../common/src/index.js';
import { scanDeck, withOutputRequests } from './deck.js';
import type { DeckSummary, OutputRequest } from './deck.js';
import { parseFrd } from './frd.js';
import type { FrdFile } from './frd.js';

/** Job name of every run: the deck is model.inp, results model.frd / model.dat. */
const JOB = 'model';

export interface CalculixRun {
  deck: DeckSummary;
  frd: FrdFile;
  solverTimeSeconds: number;
  warnings: string[];
  version: string | null;
}

/**
 * Check and write the deck (plus include files) into the scratch directory, add the output requests the tool
 * reads, run `ccx -i model`, and parse model.frd. CalculiX errors (`*ERROR`, a crash, no results) become
 * PROGRAM_FAILED with its diagnostics.
 */
export async function runCalculix(
  ccx: Program,
  context: ToolRunContext,
  input: { deck: string; include_files?: { name: string; content: string }[] },
  options: { outputRequests: OutputRequest[]; checkSteps(deck: DeckSummary): void },
): Promise<CalculixRun> {
  const includes = new Map<string, string>();
  for (const file of input.include_files ?? []) {
    const name = safeRelativeName(file.name, 'include_files name');
    if (name.startsWith(`${JOB}.`)) throw inputRejected(`include file name '${name}' is reserved by the adapter (job files are ${JOB}.*)`);
    if (includes.has(name)) throw inputRejected(`include file '${name}' is given twice`);
    includes.set(name, file.content);
  }
  const deck = scanDeck(input.deck, includes);
  options.checkSteps(deck);
  for (const [name, content] of includes) await context.writeInput(name, content, 'include_files name');
  await context.writeInput(`${JOB}.inp`, withOutputRequests(input.deck, options.outputRequests));

  const run = await context.run(['-i', JOB]);
  const output = `${run.stdout}\n${run.stderr}`.split(/\r?\n/);
  const errors = messages(output, /\*ERROR/i);
  if (run.exitCode !== 0 || run.signal || errors.length > 0) {
    const why =
      errors.length > 0 ? errors.slice(0, 5).join(' | ') : run.signal ? `crashed with ${run.signal}` : `exit code ${run.exitCode}`;
    throw new ToolFailure('PROGRAM_FAILED', `CalculiX failed: ${why}`, diagnosticsOf(run, 30));
  }
  const frdText = await context.readResult(`${JOB}.frd`);
  const frd = frdText === null ? null : parseFrd(frdText);
  if (!frd || frd.blocks.length === 0) {
    throw new ToolFailure(
      'PROGRAM_FAILED',
      'CalculiX finished without writing results (model.frd is missing or empty)',
      diagnosticsOf(run, 30),
    );
  }
  const total = /Total CalculiX Time:\s*([0-9.eE+-]+)/.exec(run.stdout)?.[1];
  return {
    deck,
    frd,
    solverTimeSeconds: total !== undefined && Number.isFinite(Number(total)) ? Number(total) : Math.round(run.durationMs) / 1000,
    warnings: messages(output, /\*WARNING/i).slice(0, 50),
    version: (await ccx.probe()).version,
  };
}

/** Element count per type, element and node counts of the results. */
export function meshSummary(run: CalculixRun) {
  return {
    mesh_elements: run.frd.elements.size,
    mesh_nodes: run.frd.nodes.size,
    element_types: Object.fromEntries(run.deck.elementTypes),
  };
}

/** Lines matching `marker` with the text after it, deduplicated. */
function messages(lines: string[], marker: RegExp): string[] {
  const found = new Set<string>();
  lines.forEach((line, index) => {
    if (!marker.test(line)) return;
    // CalculiX puts the explanation on the marker line or the line after it.
    const text = [line.trim(), lines[index + 1]?.trim() ?? ''].filter(Boolean).join(' ');
    found.add(text.length > 300 ? `${text.slice(0, 300)}…` : text);
  });
  return [...found];
}
