/**
 * One hand-written pair of the compatibility corpus with its expected verdicts. `backward`: every
 * instance valid under `old` is valid under `new`; `forward`: the other way round. `codes` must appear
 * among the changes of a full check. `conservative` marks pairs where the true answer is "compatible"
 * but is not decided, so the expected verdict is the safe "incompatible".
 */
export interface CorpusEntry {
  readonly name: string;
  readonly keyword: string;
  readonly old: unknown;
  readonly new: unknown;
  readonly backward: boolean;
  readonly forward: boolean;
  readonly codes?: readonly string[];
  readonly conservative?: boolean;
}
