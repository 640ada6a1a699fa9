import { inputRejected, safeRelativeName } from '../../common/src/index.js';
import type { SpiceAnalysis } from './schema.js';

/** Analysis cards that would run outside the adapter's control block. */
const ANALYSIS_CARDS = new Set(['.op', '.dc', '.ac', '.tran', '.noise', '.pz', '.sens', '.tf', '.disto', '.pss', '.sp']);
/** Cards that run control-language commands (which include `shell`): the adapter writes the only control block. */
const CONTROL_CARDS = new Set(['.control', '.endc', '.exec']);
const INCLUDE_CARDS = new Set(['.include', '.inc', '.lib']);

/** A vector ngspice can write: `v(out)`, `v(a,b)`, `i(v1)`, `out`, `@m1[id]`; nothing a control command could hide in. */
const VECTOR = /^(?:[A-Za-z_][\w.#:+-]*(?:\([\w.#:+-]+(?:,[\w.#:+-]+)?\))?|@[\w.#:]+\[\w+\])$/;
const SOURCE = /^[A-Za-z][\w.#:+-]*$/;

/**
 * Check the user's netlist and return it without its `.end` (and anything after), ready for the control block.
 * Refuses control blocks, analysis cards (analyses are parameters) and includes of files not given in `include_files`.
 */
export function checkNetlist(netlist: string, includeNames: ReadonlySet<string>): string {
  const lines = netlist.replace(/\r\n?/g, '\n').split('\n');
  const kept: string[] = [];
  for (const [index, line] of lines.entries()) {
    const card = line.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
    if (index > 0 && card === '.end') break; // the first line is the title, whatever it says
    if (index > 0 && card.startsWith('.')) {
      const where = `netlist line ${index + 1}`;
      if (CONTROL_CARDS.has(card)) {
        throw inputRejected(
          `${where}: '${card}' is not allowed; the adapter writes the control block (give analyses and vectors as parameters)`,
        );
      }
      if (ANALYSIS_CARDS.has(card)) {
        throw inputRejected(`${where}: analysis card '${card}' is not allowed in the netlist; give it in the 'analyses' parameter`);
      }
      if (INCLUDE_CARDS.has(card)) checkInclude(line, where, includeNames);
    }
    kept.push(line);
  }
  return kept.join('\n');
}

function checkInclude(line: string, where: string, includeNames: ReadonlySet<string>): void {
  const target = line
    .trim()
    .split(/\s+/)[1]
    ?.replace(/^["']|["']$/g, '');
  if (!target) throw inputRejected(`${where}: include without a file name`);
  const name = safeRelativeName(target, `${where}: included file`);
  if (!includeNames.has(name)) {
    throw inputRejected(`${where}: included file '${name}' is not among 'include_files' (give its contents there)`);
  }
}

/** Check vector names before they go into the control block. */
export function checkVectors(vectors: readonly string[]): void {
  for (const vector of vectors) {
    if (!VECTOR.test(vector)) {
      throw inputRejected(`vector '${vector}' is not a vector name ngspice accepts here (e.g. v(out), v(a,b), i(v1), @m1[id])`);
    }
  }
}

/** Number of points an analysis will produce, checked against `maxPoints`. */
export function checkPoints(analysis: SpiceAnalysis, index: number, maxPoints: number): number {
  let points: number;
  switch (analysis.type) {
    case 'op':
      return 1;
    case 'dc':
      if (!SOURCE.test(analysis.source)) throw inputRejected(`analyses[${index}]: source '${analysis.source}' is not an element name`);
      if (analysis.step === 0) throw inputRejected(`analyses[${index}]: dc step must not be 0`);
      if (Math.sign(analysis.stop - analysis.start) * Math.sign(analysis.step) < 0) {
        throw inputRejected(`analyses[${index}]: dc step ${analysis.step} does not lead from ${analysis.start} to ${analysis.stop}`);
      }
      points = Math.floor(Math.abs((analysis.stop - analysis.start) / analysis.step)) + 1;
      break;
    case 'ac': {
      if (analysis.stop_hz < analysis.start_hz) throw inputRejected(`analyses[${index}]: ac stop_hz is below start_hz`);
      const span =
        analysis.variation === 'lin' ? 1 : Math.log(analysis.stop_hz / analysis.start_hz) / Math.log(analysis.variation === 'dec' ? 10 : 2);
      points = Math.ceil(analysis.points * Math.max(span, 1)) + 1;
      break;
    }
    case 'tran': {
      const start = analysis.start_s ?? 0;
      if (analysis.stop_s <= start) throw inputRejected(`analyses[${index}]: tran stop_s must be after start_s`);
      points = Math.floor((analysis.stop_s - start) / analysis.step_s) + 1;
      break;
    }
  }
  if (points > maxPoints) {
    throw inputRejected(
      `analyses[${index}] (${analysis.type}) would produce ${points} points, more than max_points=${maxPoints}; use a coarser step`,
    );
  }
  return points;
}

/** The analysis command of the control block. */
function analysisCommand(analysis: SpiceAnalysis): string {
  switch (analysis.type) {
    case 'op':
      return 'op';
    case 'dc':
      return `dc ${analysis.source} ${num(analysis.start)} ${num(analysis.stop)} ${num(analysis.step)}`;
    case 'ac':
      return `ac ${analysis.variation} ${analysis.points} ${num(analysis.start_hz)} ${num(analysis.stop_hz)}`;
    case 'tran': {
      const parts = ['tran', num(analysis.step_s), num(analysis.stop_s)];
      if (analysis.start_s !== undefined || analysis.max_step_s !== undefined) parts.push(num(analysis.start_s ?? 0));
      if (analysis.max_step_s !== undefined) parts.push(num(analysis.max_step_s));
      return parts.join(' ');
    }
  }
}

/** Data file of analysis `index`. */
export function dataFileName(index: number): string {
  return `analysis-${index}.dat`;
}

/**
 * The deck ngspice runs: the checked netlist, then a control block that runs each analysis on a clean slate
 * (`destroy all`, so a failed analysis cannot leave the previous one's vectors behind), resamples transient
 * results onto the requested step (`linearize`) and writes the requested vectors with `wrdata`.
 */
export function buildDeck(netlist: string, analyses: readonly SpiceAnalysis[], vectors: readonly string[]): string {
  const control = ['.control', 'set wr_vecnames', 'set wr_singlescale', 'set numdgt=12'];
  analyses.forEach((analysis, index) => {
    control.push('destroy all', analysisCommand(analysis));
    if (analysis.type === 'tran') control.push(`linearize ${vectors.join(' ')}`);
    control.push(`wrdata ${dataFileName(index)} ${vectors.join(' ')}`);
  });
  control.push('quit', '.endc', '.end');
  return `${netlist}\n${control.join('\n')}\n`;
}

function num(value: number): string {
  return value.toExponential(12);
}
