/** Why a twin operation was refused; each transport maps the reason to its status (REST, gRPC, the sandbox). */
export type TwinFailureReason =
  | 'BRANCH_NOT_FOUND'
  | 'BRANCH_EXISTS'
  | 'WORK_PRODUCT_NOT_FOUND'
  | 'REVISION_NOT_FOUND'
  | 'KIND_MISMATCH'
  | 'INVALID'
  | 'TOO_LARGE'
  | 'MEDIA_TYPE_UNSUPPORTED';

/** A refused twin operation: nothing was written. `errors` names the offending fields of an INVALID request. */
export class TwinFailure extends Error {
  constructor(
    readonly reason: TwinFailureReason,
    message: string,
    readonly details: Record<string, unknown> = {},
    readonly errors: { field: string; message: string }[] = [],
  ) {
    super(message);
    this.name = 'TwinFailure';
  }
}

export function invalid(field: string, message: string): TwinFailure {
  return new TwinFailure('INVALID', `${field} ${message}`, {}, [{ field, message }]);
}
