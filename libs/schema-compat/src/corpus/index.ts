import { ARRAY_PAIRS } from './arrays.js';
import { COMBINATOR_PAIRS } from './combinators.js';
import type { CorpusEntry } from './corpus-entry.js';
import { MISCELLANEOUS_PAIRS } from './annotations-and-misc.js';
import { OBJECT_PAIRS } from './objects.js';
import { REFERENCE_PAIRS } from './references.js';
import { NUMBER_PAIRS } from './numbers.js';
import { OBJECT_KEYWORD_PAIRS } from './object-keywords.js';
import { STRING_PAIRS } from './strings.js';
import { TYPE_AND_VALUE_PAIRS } from './types-and-values.js';

export type { CorpusEntry } from './corpus-entry.js';

/** Every hand-written pair of the compatibility corpus. */
export const CORPUS: readonly CorpusEntry[] = [
  ...TYPE_AND_VALUE_PAIRS,
  ...STRING_PAIRS,
  ...NUMBER_PAIRS,
  ...OBJECT_PAIRS,
  ...OBJECT_KEYWORD_PAIRS,
  ...ARRAY_PAIRS,
  ...COMBINATOR_PAIRS,
  ...REFERENCE_PAIRS,
  ...MISCELLANEOUS_PAIRS,
];
