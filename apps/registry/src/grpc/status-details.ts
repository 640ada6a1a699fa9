/**
 * The `grpc-status-details-bin` trailer: a google.rpc.Status whose details are google.rpc.ErrorInfo,
 * BadRequest, PreconditionFailure and RetryInfo messages (google/rpc/status.proto, error_details.proto). The few
 * messages are encoded by hand, which keeps the registry free of a protobuf runtime of its own.
 */
export interface FieldViolation {
  field: string;
  description: string;
}

export interface PreconditionViolation {
  type: string;
  subject: string;
  description: string;
}

export interface StatusDetails {
  code: number;
  message: string;
  errorInfo: { reason: string; domain: string; metadata: Record<string, string> };
  fieldViolations?: FieldViolation[];
  preconditionViolations?: PreconditionViolation[];
  /** RetryInfo: when a retry may succeed (what REST's Retry-After says). */
  retryDelaySeconds?: number;
}

const TYPE_PREFIX = 'type.googleapis.com/google.rpc.';

export function encodeStatusDetails(status: StatusDetails): Buffer {
  const details: Buffer[] = [
    any('ErrorInfo', [
      text(1, status.errorInfo.reason),
      text(2, status.errorInfo.domain),
      ...Object.entries(status.errorInfo.metadata).map(([key, value]) => bytes(3, Buffer.concat([text(1, key), text(2, value)]))),
    ]),
  ];
  if (status.fieldViolations?.length) {
    details.push(
      any(
        'BadRequest',
        status.fieldViolations.map((v) => bytes(1, Buffer.concat([text(1, v.field), text(2, v.description)]))),
      ),
    );
  }
  if (status.preconditionViolations?.length) {
    details.push(
      any(
        'PreconditionFailure',
        status.preconditionViolations.map((v) => bytes(1, Buffer.concat([text(1, v.type), text(2, v.subject), text(3, v.description)]))),
      ),
    );
  }
  // RetryInfo { google.protobuf.Duration retry_delay = 1 }, Duration { int64 seconds = 1 }.
  if (status.retryDelaySeconds) details.push(any('RetryInfo', [bytes(1, varintField(1, status.retryDelaySeconds))]));
  return Buffer.concat([varintField(1, status.code), text(2, status.message), ...details.map((detail) => bytes(3, detail))]);
}

/** A google.protobuf.Any holding the google.rpc message `type` made of `fields`. */
function any(type: string, fields: Buffer[]): Buffer {
  return Buffer.concat([text(1, TYPE_PREFIX + type), bytes(2, Buffer.concat(fields))]);
}

function varint(value: number): Buffer {
  const out: number[] = [];
  let rest = value >>> 0;
  while (rest > 0x7f) {
    out.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  out.push(rest);
  return Buffer.from(out);
}

function varintField(fieldNumber: number, value: number): Buffer {
  return value === 0 ? Buffer.alloc(0) : Buffer.concat([varint(fieldNumber << 3), varint(value)]);
}

/** A length-delimited field (wire type 2). */
function bytes(fieldNumber: number, payload: Buffer): Buffer {
  return Buffer.concat([varint((fieldNumber << 3) | 2), varint(payload.length), payload]);
}

function text(fieldNumber: number, value: string): Buffer {
  return value === '' ? Buffer.alloc(0) : bytes(fieldNumber, Buffer.from(value, 'utf8'));
}
