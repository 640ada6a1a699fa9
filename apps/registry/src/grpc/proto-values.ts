import { RequestInvalid } from '../problem/domain-errors.js';

/**
 * google.protobuf well-known types as @grpc/proto-loader encodes them here. Its built-in copies of
 * Struct and Value keep protobufjs's camelCase field names (`stringValue`, ...) even with
 * `keepCase`, so these shapes are written out by hand.
 */
export type ProtoValue =
  | { nullValue: 'NULL_VALUE' }
  | { numberValue: number }
  | { stringValue: string }
  | { boolValue: boolean }
  | { structValue: ProtoStruct }
  | { listValue: { values: ProtoValue[] } };

export interface ProtoStruct {
  fields: Record<string, ProtoValue>;
}

export interface ProtoTimestamp {
  seconds: number | string;
  nanos: number;
}

/** A JSON object as a Struct; `null`/`undefined` stay absent (the message field is left unset). */
export function toStruct(json: Record<string, unknown> | null | undefined): ProtoStruct | undefined {
  if (json === null || json === undefined) return undefined;
  const fields: Record<string, ProtoValue> = {};
  for (const [key, value] of Object.entries(json)) {
    if (value !== undefined) fields[key] = toValue(value);
  }
  return { fields };
}

function toValue(value: unknown): ProtoValue {
  if (value === null || value === undefined) return { nullValue: 'NULL_VALUE' };
  if (typeof value === 'number') return { numberValue: value };
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (Array.isArray(value)) return { listValue: { values: value.map(toValue) } };
  if (value instanceof Date) return { stringValue: value.toISOString() };
  if (typeof value === 'object') return { structValue: toStruct(value as Record<string, unknown>) as ProtoStruct };
  return { stringValue: String(value) };
}

/** A decoded Struct back to JSON (what the use-cases take). Its depth was bounded at the gRPC edge (grpc-request-check.ts). */
export function fromStruct(struct: ProtoStruct | null | undefined): Record<string, unknown> {
  const json: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(struct?.fields ?? {})) json[key] = fromValue(value);
  return json;
}

/** A decoded Value back to JSON. */
export function fromValue(value: ProtoValue | Record<string, unknown>): unknown {
  if ('structValue' in value && value.structValue) return fromStruct(value.structValue as ProtoStruct);
  if ('listValue' in value && value.listValue) return ((value.listValue as { values?: ProtoValue[] }).values ?? []).map(fromValue);
  if ('stringValue' in value && typeof value.stringValue === 'string') return value.stringValue;
  if ('numberValue' in value && typeof value.numberValue === 'number') return value.numberValue;
  if ('boolValue' in value && typeof value.boolValue === 'boolean') return value.boolValue;
  return null;
}

/** An ISO 8601 string or Date as a Timestamp; `null` stays absent. */
export function toTimestamp(at: string | Date | null | undefined): ProtoTimestamp | undefined {
  if (at === null || at === undefined) return undefined;
  const ms = typeof at === 'string' ? Date.parse(at) : at.getTime();
  if (Number.isNaN(ms)) return undefined;
  const seconds = Math.floor(ms / 1000);
  return { seconds, nanos: (ms - seconds * 1000) * 1_000_000 };
}

/** The range google.protobuf.Timestamp allows: 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z. */
const MIN_SECONDS = -62_135_596_800;
const MAX_SECONDS = 253_402_300_799;

/** A decoded Timestamp as a Date (`null` when absent); outside the Timestamp range, a RequestInvalid naming `field`. */
export function fromTimestamp(timestamp: ProtoTimestamp | null | undefined, field: string): Date | null {
  if (!timestamp) return null;
  const seconds = Number(timestamp.seconds);
  const nanos = timestamp.nanos ?? 0;
  if (!Number.isInteger(seconds) || seconds < MIN_SECONDS || seconds > MAX_SECONDS || nanos < 0 || nanos > 999_999_999) {
    const message = 'must be a Timestamp between 0001-01-01 and 9999-12-31 (nanos 0–999999999)';
    throw new RequestInvalid(`${field} ${message}`, [{ field, message }]);
  }
  return new Date(seconds * 1000 + Math.floor(nanos / 1_000_000));
}
