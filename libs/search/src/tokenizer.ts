/**
 * Tokeniser shared by documents and queries, so both sides of a match are normalised alike.
 *
 * - lowercase; words are runs of letters and digits, possibly joined by `_`, `-` or `.`
 *   (`check_memory_budget`, `pure-logic`, `calculix.run_fea`);
 * - a joined word yields its parts AND the whole word, so `memory` finds `check_memory_budget` while
 *   the full snake_case name (or tool id) still matches more strongly than its parts;
 * - a short stopword list is dropped (the seed's list plus a few);
 * - light plural stemming on the parts (see `stem`), never on whole joined words, which are identifiers.
 */
const WORD = /[\p{L}\p{N}]+(?:[._-][\p{L}\p{N}]+)*/gu;
const PART_SEPARATOR = /[._-]+/;

const STOPWORDS: ReadonlySet<string> = new Set([
  'a',
  'an',
  'the',
  'of',
  'and',
  'or',
  'to',
  'for',
  'with',
  'from',
  'in',
  'on',
  'by',
  'is',
  'it',
  'its',
  'as',
  'at',
  'be',
]);

/**
 * Plural stripping only (Harman's S-stemmer, with Porter's `sses` rule and the sibilant `-es`):
 * `checks`→`check`, `stresses`→`stress`, `meshes`→`mesh`, `assemblies`→`assembly`,
 * `databases`→`database`; `analysis`, `bus`, `loss` stay.
 */
export function stem(word: string): string {
  if (word.length <= 3) return word;
  if (word.endsWith('ies') && !word.endsWith('eies') && !word.endsWith('aies')) return `${word.slice(0, -3)}y`;
  if (/(?:sses|xes|zes|ches|shes)$/.test(word)) return word.slice(0, -2);
  if (word.endsWith('es') && !word.endsWith('aes') && !word.endsWith('ees') && !word.endsWith('oes')) return word.slice(0, -1);
  if (word.endsWith('s') && !/(?:ss|us|is)$/.test(word)) return word.slice(0, -1);
  return word;
}

/** The tokens of `text`, in order, duplicates kept (term frequencies count them). */
export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    const parts = word.split(PART_SEPARATOR);
    for (const part of parts) {
      if (!STOPWORDS.has(part)) tokens.push(stem(part));
    }
    if (parts.length > 1) tokens.push(word);
  }
  return tokens;
}

/**
 * Tokens of a field matched only as whole words (seed 004's `dcc`: "exact token match only"): each word yields the
 * one token a query gives for it whole — the joined word itself (`houdini-fx`), or a single word stemmed as queries
 * stem it — and never its parts.
 */
export function wholeWordTokens(text: string): string[] {
  const tokens: string[] = [];
  for (const match of text.toLowerCase().matchAll(WORD)) {
    const word = match[0];
    tokens.push(PART_SEPARATOR.test(word) ? word : stem(word));
  }
  return tokens;
}
