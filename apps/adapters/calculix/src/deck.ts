import { inputRejected, safeRelativeName } from '../../common/src/index.js';

/** What the adapter needs to know about a CalculiX input deck (and the files it includes). */
export interface DeckSummary {
  /** Element set name (upper case, as CalculiX reports it) → element ids. */
  elementSets: Map<string, Set<number>>;
  /** Node set name (upper case) → node ids. */
  nodeSets: Map<string, Set<number>>;
  /** Element type (C3D8I, C3D10, ...) → number of elements declared with it. */
  elementTypes: Map<string, number>;
  /** Analysis procedure keyword of each step, in order (STATIC, HEAT TRANSFER, ...), with its parameters. */
  steps: { procedure: string; parameters: Map<string, string> }[];
}

interface Keyword {
  name: string;
  parameters: Map<string, string>;
  data: string[];
}

/** Deepest chain of *INCLUDE files followed. */
const MAX_INCLUDE_DEPTH = 8;
/** Procedure keywords that open the analysis of a step. */
const PROCEDURES = new Set([
  'STATIC',
  'HEAT TRANSFER',
  'FREQUENCY',
  'BUCKLE',
  'DYNAMIC',
  'MODAL DYNAMIC',
  'STEADY STATE DYNAMICS',
  'COUPLED TEMPERATURE-DISPLACEMENT',
  'UNCOUPLED TEMPERATURE-DISPLACEMENT',
  'VISCO',
  'COMPLEX FREQUENCY',
  'ELECTROMAGNETICS',
  'GREEN',
  'SENSITIVITY',
  'CFD',
]);
/** Largest GENERATE range accepted (guards against a typo creating billions of ids). */
const MAX_GENERATE = 10_000_000;

/**
 * Scan a deck: sets, element types and step procedures. Every parameter naming a file (`INPUT=`) must be a
 * safe relative name among the given include files; anything else is refused before CalculiX runs.
 */
export function scanDeck(deck: string, includes: ReadonlyMap<string, string>): DeckSummary {
  const summary: DeckSummary = { elementSets: new Map(), nodeSets: new Map(), elementTypes: new Map(), steps: [] };
  const pendingElementRefs: [string, string][] = [];
  const pendingNodeRefs: [string, string][] = [];
  const visit = (text: string, where: string, depth: number) => {
    for (const keyword of keywords(text)) {
      const input = keyword.parameters.get('INPUT');
      if (input !== undefined) {
        const name = safeRelativeName(input, `${where}: *${keyword.name} INPUT`);
        const contents = includes.get(name);
        if (contents === undefined) throw inputRejected(`${where}: *${keyword.name} reads '${name}', which is not among 'include_files'`);
        if (keyword.name === 'INCLUDE') {
          if (depth >= MAX_INCLUDE_DEPTH) throw inputRejected(`${where}: *INCLUDE nesting deeper than ${MAX_INCLUDE_DEPTH}`);
          visit(contents, name, depth + 1);
        }
        continue;
      }
      applyKeyword(summary, keyword, where, pendingElementRefs, pendingNodeRefs);
    }
  };
  visit(deck, 'deck', 0);
  resolveReferences(summary.elementSets, pendingElementRefs, 'element');
  resolveReferences(summary.nodeSets, pendingNodeRefs, 'node');
  return summary;
}

/** A result the tool reads: `*NODE FILE` or `*EL FILE` with one output variable (U, S, NT, ...). */
export interface OutputRequest {
  keyword: 'NODE FILE' | 'EL FILE';
  variable: string;
}

/**
 * Make every step of the main deck write what the tool reads to the results file (.frd): a request the step
 * already makes (with its own FREQUENCY) is left alone; a missing one is added before its `*END STEP`.
 */
export function withOutputRequests(deck: string, requests: readonly OutputRequest[]): string {
  const lines = deck.replace(/\r\n?/g, '\n').split('\n');
  const out: string[] = [];
  let steps = 0;
  let present = new Set<string>();
  let openKeyword: string | null = null;
  for (const line of lines) {
    const trimmed = line.trim();
    const keyword = /^\*(?!\*)\s*([^,]*)/.exec(trimmed)?.[1].trim().toUpperCase().replace(/\s+/g, ' ');
    if (keyword === 'STEP') present = new Set();
    if (keyword === 'END STEP') {
      for (const request of requests) {
        if (!present.has(`${request.keyword}:${request.variable}`)) out.push(`*${request.keyword}`, request.variable);
      }
      steps += 1;
    }
    if (keyword !== undefined) openKeyword = keyword;
    else if (trimmed && !trimmed.startsWith('**') && (openKeyword === 'NODE FILE' || openKeyword === 'EL FILE')) {
      for (const variable of trimmed.split(',')) present.add(`${openKeyword}:${variable.trim().toUpperCase()}`);
    }
    out.push(line);
  }
  if (steps === 0)
    throw inputRejected('the deck has no *STEP ... *END STEP block in the main file (steps in included files are not supported)');
  return out.join('\n');
}

function applyKeyword(
  summary: DeckSummary,
  keyword: Keyword,
  where: string,
  elementRefs: [string, string][],
  nodeRefs: [string, string][],
) {
  switch (keyword.name) {
    case 'NODE': {
      const set = keyword.parameters.get('NSET');
      if (set) addAll(summary.nodeSets, set, keyword.data.map(firstId));
      return;
    }
    case 'ELEMENT': {
      const type = keyword.parameters.get('TYPE')?.toUpperCase();
      if (!type) throw inputRejected(`${where}: *ELEMENT without TYPE=`);
      const ids = elementIds(keyword.data);
      summary.elementTypes.set(type, (summary.elementTypes.get(type) ?? 0) + ids.length);
      const set = keyword.parameters.get('ELSET');
      if (set) addAll(summary.elementSets, set, ids);
      return;
    }
    case 'ELSET':
    case 'NSET': {
      const isElement = keyword.name === 'ELSET';
      const name = keyword.parameters.get(keyword.name);
      if (!name) throw inputRejected(`${where}: *${keyword.name} without ${keyword.name}=`);
      const sets = isElement ? summary.elementSets : summary.nodeSets;
      const ids = setMembers(keyword, name, where, isElement ? elementRefs : nodeRefs);
      addAll(sets, name, ids);
      return;
    }
    default:
      if (PROCEDURES.has(keyword.name)) summary.steps.push({ procedure: keyword.name, parameters: keyword.parameters });
  }
}

function setMembers(keyword: Keyword, name: string, where: string, refs: [string, string][]): number[] {
  const tokens = keyword.data.flatMap((line) => line.split(',').map((token) => token.trim())).filter(Boolean);
  if (keyword.parameters.has('GENERATE')) {
    const ids: number[] = [];
    for (let i = 0; i + 1 < tokens.length; i += 3) {
      const [start, end, step] = [Number(tokens[i]), Number(tokens[i + 1]), Number(tokens[i + 2] ?? 1)];
      if (![start, end, step].every(Number.isInteger) || step <= 0 || end < start || (end - start) / step > MAX_GENERATE) {
        throw inputRejected(
          `${where}: *${keyword.name} ${name} GENERATE line '${tokens.slice(i, i + 3).join(', ')}' is not start, end, increment`,
        );
      }
      for (let id = start; id <= end; id += step) ids.push(id);
    }
    return ids;
  }
  const ids: number[] = [];
  for (const token of tokens) {
    const id = Number(token);
    if (Number.isInteger(id)) ids.push(id);
    else refs.push([name.toUpperCase(), token.toUpperCase()]);
  }
  return ids;
}

function resolveReferences(sets: Map<string, Set<number>>, refs: [string, string][], kind: string) {
  for (const [target, source] of refs) {
    const members = sets.get(source);
    if (!members) throw inputRejected(`${kind} set ${target} refers to ${source}, which is not a ${kind} set of the deck`);
    const into = sets.get(target) ?? new Set<number>();
    for (const id of members) into.add(id);
    sets.set(target, into);
  }
}

function addAll(sets: Map<string, Set<number>>, name: string, ids: Iterable<number>) {
  const key = name.toUpperCase();
  const set = sets.get(key) ?? new Set<number>();
  for (const id of ids) set.add(id);
  sets.set(key, set);
}

function firstId(line: string): number {
  return Number(line.split(',')[0]);
}

/** Element ids of *ELEMENT data lines; a line ending in ',' continues on the next one. */
function elementIds(data: string[]): number[] {
  const ids: number[] = [];
  let continuing = false;
  for (const line of data) {
    if (!continuing) ids.push(firstId(line));
    continuing = line.trimEnd().endsWith(',');
  }
  return ids.filter(Number.isInteger);
}

/** Keyword cards with their parameters and data lines; `**` comment lines are skipped. */
function keywords(text: string): Keyword[] {
  const result: Keyword[] = [];
  let current: Keyword | null = null;
  for (const raw of text.replace(/\r\n?/g, '\n').split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('**')) continue;
    if (line.startsWith('*')) {
      const [head, ...params] = line.slice(1).split(',');
      const parameters = new Map<string, string>();
      for (const param of params) {
        const eq = param.indexOf('=');
        const key = (eq < 0 ? param : param.slice(0, eq)).trim().toUpperCase().replace(/\s+/g, ' ');
        if (key) parameters.set(key, eq < 0 ? '' : param.slice(eq + 1).trim());
      }
      current = { name: head.trim().toUpperCase().replace(/\s+/g, ' '), parameters, data: [] };
      result.push(current);
    } else if (current) {
      current.data.push(line);
    }
  }
  return result;
}
