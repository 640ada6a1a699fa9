import type { ServiceDefinition } from '@grpc/grpc-js';
import { JsonRejected, MAX_JSON_DEPTH, assertStorableText } from '#contracts/index.js';
import { RequestInvalid } from '../problem/domain-errors.js';
import { toGrpcError, type GrpcError } from './grpc-errors.js';
import { framingFault, requestTypeName, type MessageFields } from './wire-framing.js';

/** What a request deserializer returns instead of throwing (grpc-js would answer INTERNAL). */
class UndecodableRequest {
  constructor(readonly reason: string) {}
}

/**
 * The service with request deserializers that never throw: a failure becomes an UndecodableRequest, and so does a
 * request whose framing is faulty (framingFault, checked against its message types from `types`), which protobufjs
 * may decode into something else without a word.
 */
export function decodingNeverThrows(service: ServiceDefinition, types: MessageFields = new Map()): ServiceDefinition {
  const wrapped: Record<string, unknown> = {};
  for (const [name, method] of Object.entries(service)) {
    const decode = method.requestDeserialize;
    const requestType = requestTypeName(method as Parameters<typeof requestTypeName>[0]);
    const fields = (requestType && types.get(requestType)) || new Map<number, string>();
    wrapped[name] = {
      ...method,
      requestDeserialize: (bytes: Buffer) => {
        const fault = framingFault(bytes, fields, types);
        if (fault) return new UndecodableRequest(`not a valid protobuf message (${fault})`);
        let request: unknown;
        try {
          request = decode(bytes);
        } catch (error) {
          return new UndecodableRequest(error instanceof RangeError ? 'nested too deeply' : 'not a valid protobuf message');
        }
        return replacedInvalidUtf8(request, bytes) ? new UndecodableRequest('a string field is not valid UTF-8') : request;
      },
    };
  }
  return wrapped as ServiceDefinition;
}

const REPLACEMENT = '\uFFFD';
const REPLACEMENT_BYTES = Buffer.from(REPLACEMENT, 'utf8');

/**
 * protobufjs decodes invalid UTF-8 into U+FFFD silently. A decoded request holding more U+FFFD
 * characters than its bytes encode was rewritten that way: the client sent invalid UTF-8.
 */
function replacedInvalidUtf8(request: unknown, bytes: Buffer): boolean {
  let decoded = 0;
  const pending: unknown[] = [request];
  while (pending.length > 0) {
    const current = pending.pop();
    if (typeof current === 'string') {
      for (let at = current.indexOf(REPLACEMENT); at >= 0; at = current.indexOf(REPLACEMENT, at + 1)) decoded++;
    } else if (current && typeof current === 'object' && !Buffer.isBuffer(current)) {
      pending.push(...Object.keys(current), ...Object.values(current));
    }
  }
  if (decoded === 0) return false;
  let sent = 0;
  for (let at = bytes.indexOf(REPLACEMENT_BYTES); at >= 0; at = bytes.indexOf(REPLACEMENT_BYTES, at + 1)) sent++;
  return decoded > sent;
}

/**
 * Struct values nest three messages per JSON level (Struct → Value → Struct); a request deeper
 * than the JSON depth limit allows is refused before the handlers convert it recursively.
 */
const MAX_MESSAGE_DEPTH = MAX_JSON_DEPTH * 3 + 8;

/** The gRPC edge's checks of a decoded request: null when it may reach a handler, else the error to answer. */
export function checkedRequest(request: unknown): GrpcError | null {
  if (request instanceof UndecodableRequest) {
    return refuse(new RequestInvalid(`Request is invalid: ${request.reason}`, [{ field: 'request', message: request.reason }]));
  }
  if (depthOf(request) > MAX_MESSAGE_DEPTH) {
    return refuse(
      new RequestInvalid(`Request is invalid: nested deeper than ${MAX_JSON_DEPTH} levels`, [
        { field: 'request', message: 'nested too deeply' },
      ]),
    );
  }
  try {
    assertStorableText(request);
  } catch (error) {
    if (!(error instanceof JsonRejected)) throw error;
    const field = (error.pointer ?? '').replace(/^\//, '').replace(/\//g, '.') || 'request';
    return refuse(new RequestInvalid(`Request is invalid: ${field}: ${error.reason}`, [{ field, message: error.reason }]));
  }
  return null;
}

function refuse(error: RequestInvalid): GrpcError {
  return toGrpcError(error)!;
}

/** Nesting depth of a decoded message, without recursion. */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: [unknown, number][] = [[value, 0]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (!current || typeof current !== 'object' || ArrayBuffer.isView(current)) continue;
    deepest = Math.max(deepest, depth);
    if (deepest > MAX_MESSAGE_DEPTH) return deepest;
    for (const child of Object.values(current)) pending.push([child, depth + 1]);
  }
  return deepest;
}
