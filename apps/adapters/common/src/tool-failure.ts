/** Why a tool call failed; each code is stable and shows up in the isError result's `error.code`. */
export type ToolFailureCode =
  'INPUT_REJECTED' | 'PROGRAM_NOT_INSTALLED' | 'PROGRAM_FAILED' | 'PROGRAM_TIMEOUT' | 'OUTPUT_LIMIT' | 'CANCELLED' | 'INTERNAL';

/** What the program said before it failed: its exit status and the last lines of its output. */
export interface ProgramDiagnostics {
  exit_code: number | null;
  signal: string | null;
  stderr_tail: string[];
  stdout_tail: string[];
}

/** A failure a tool handler reports on purpose; the server turns it into an `isError` result. */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolFailureCode,
    message: string,
    readonly diagnostics?: ProgramDiagnostics,
  ) {
    super(message);
    this.name = 'ToolFailure';
  }
}

/** Bad input (path escape, forbidden directive, inconsistent parameters): refused before anything runs. */
export function inputRejected(message: string): ToolFailure {
  return new ToolFailure('INPUT_REJECTED', message);
}
