import path from 'node:path';
import { createRequire } from 'node:module';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';
import { GrpcEndpoint } from '../../apps/registry/src/grpc/grpc-endpoint.js';
import type { RunningRegistry } from './registry.js';
import { REPO_ROOT } from './skill-packages.js';

/**
 * A plain @grpc/grpc-js client of proto/skill_registry.proto, as another service would write it,
 * with helpers to read trailing metadata, decode google.rpc status details and use reflection.
 */
export const PROTO_PATH = path.join(REPO_ROOT, 'proto/skill_registry.proto');
const LOADER_OPTIONS = { keepCase: true, longs: String, enums: String, defaults: true, oneofs: true };

/** The port a registry started by startRegistry serves gRPC on (GRPC_PORT=0 there). */
export function grpcPort(registry: RunningRegistry): number {
  const port = registry.app.get(GrpcEndpoint).port;
  if (!port) throw new Error('the registry has no gRPC port');
  return port;
}

export type RegistryClient = grpc.Client & Record<string, any>;

export function registryClient(port: number): RegistryClient {
  const definition = protoLoader.loadSync(PROTO_PATH, LOADER_OPTIONS);
  const loaded = grpc.loadPackageDefinition(definition) as any;
  const Service = loaded.skillregistry.v1.SkillRegistry as grpc.ServiceClientConstructor;
  return new Service(`127.0.0.1:${port}`, grpc.credentials.createInsecure()) as RegistryClient;
}

export function bearer(token?: string): grpc.Metadata {
  const metadata = new grpc.Metadata();
  if (token !== undefined) metadata.set('authorization', `Bearer ${token}`);
  return metadata;
}

export interface UnaryAnswer<T = any> {
  response: T;
  trailers: grpc.Metadata;
}

/** Calls a unary RPC; resolves with the response and the trailing metadata, rejects with the ServiceError. */
export function unary<T = any>(
  client: RegistryClient,
  method: string,
  request: object,
  metadata = new grpc.Metadata(),
): Promise<UnaryAnswer<T>> {
  return new Promise((resolve, reject) => {
    let response: T | undefined;
    let failed = false;
    const call = client[method](request, metadata, { deadline: Date.now() + 60_000 }, (error: grpc.ServiceError | null, value: T) => {
      if (error) {
        failed = true;
        reject(error);
      } else response = value;
    });
    (call as grpc.ClientUnaryCall).on('status', (status: grpc.StatusObject) => {
      if (!failed) resolve({ response: response as T, trailers: status.metadata });
    });
  });
}

export interface DecodedError {
  code: grpc.status;
  details: string;
  /** The registry's stable code (trailer `error-code`). */
  errorCode: string | undefined;
  /** google.rpc.Status from `grpc-status-details-bin`, decoded with the official field numbers. */
  status: {
    code: number;
    message: string;
    errorInfo?: { reason: string; domain: string; metadata: Record<string, string> };
    fieldViolations: { field: string; description: string }[];
    preconditionViolations: { type: string; subject: string; description: string }[];
    /** google.rpc.RetryInfo's delay, on UNAVAILABLE. */
    retryDelaySeconds?: number;
  } | null;
}

/** Awaits a call that must fail and decodes its status. */
export async function failure(promise: Promise<unknown>): Promise<DecodedError> {
  try {
    await promise;
  } catch (error) {
    const serviceError = error as grpc.ServiceError;
    if (typeof serviceError.code !== 'number') throw error;
    const [errorCode] = serviceError.metadata?.get('error-code') ?? [];
    const [details] = serviceError.metadata?.get('grpc-status-details-bin') ?? [];
    return {
      code: serviceError.code,
      details: serviceError.details,
      errorCode: errorCode as string | undefined,
      status: details ? decodeStatus(details as Buffer) : null,
    };
  }
  throw new Error('expected the call to fail');
}

// The google.rpc messages the registry sends, with the field numbers of google/rpc/status.proto and
// google/rpc/error_details.proto.
const RPC_TYPES = protobuf.parse(
  `
  syntax = "proto3";
  package google.rpc;
  message Any { string type_url = 1; bytes value = 2; }
  message Status { int32 code = 1; string message = 2; repeated Any details = 3; }
  message ErrorInfo { string reason = 1; string domain = 2; map<string, string> metadata = 3; }
  message BadRequest { message FieldViolation { string field = 1; string description = 2; } repeated FieldViolation field_violations = 1; }
  message PreconditionFailure { message Violation { string type = 1; string subject = 2; string description = 3; } repeated Violation violations = 1; }
  message Duration { int64 seconds = 1; int32 nanos = 2; }
  message RetryInfo { Duration retry_delay = 1; }
`,
  { keepCase: true },
).root;

function decodeStatus(buffer: Buffer): DecodedError['status'] {
  const toObject = (type: string, bytes: Uint8Array) =>
    RPC_TYPES.lookupType(`google.rpc.${type}`).toObject(RPC_TYPES.lookupType(`google.rpc.${type}`).decode(bytes), {
      defaults: true,
      arrays: true,
      objects: true,
    }) as any;
  const status = toObject('Status', buffer);
  const decoded: NonNullable<DecodedError['status']> = {
    code: status.code,
    message: status.message,
    fieldViolations: [],
    preconditionViolations: [],
  };
  for (const detail of status.details as { type_url: string; value: Uint8Array }[]) {
    const type = detail.type_url.replace('type.googleapis.com/google.rpc.', '');
    if (type === 'ErrorInfo') decoded.errorInfo = toObject(type, detail.value);
    if (type === 'BadRequest') decoded.fieldViolations = toObject(type, detail.value).field_violations;
    if (type === 'PreconditionFailure') decoded.preconditionViolations = toObject(type, detail.value).violations;
    if (type === 'RetryInfo') decoded.retryDelaySeconds = Number(toObject(type, detail.value).retry_delay.seconds);
  }
  return decoded;
}

/** Reads a server stream to its end. */
export function collect<T = any>(stream: grpc.ClientReadableStream<T>): Promise<T[]> {
  return new Promise((resolve, reject) => {
    const items: T[] = [];
    stream.on('data', (item: T) => items.push(item));
    stream.on('error', reject);
    stream.on('end', () => resolve(items));
  });
}

/** A message's JSON as REST would send it: Struct -> JSON, Timestamp -> ISO string, proto3 optional bookkeeping dropped. */
export function restShape(value: any): any {
  if (value === null || value === undefined) return value;
  if (Array.isArray(value)) return value.map(restShape);
  if (typeof value !== 'object') return value;
  const keys = Object.keys(value);
  if (keys.length === 1 && keys[0] === 'fields' && typeof value.fields === 'object') return structJson(value);
  if (keys.length === 2 && 'seconds' in value && 'nanos' in value)
    return new Date(Number(value.seconds) * 1000 + value.nanos / 1e6).toISOString();
  return Object.fromEntries(keys.filter((key) => !key.startsWith('_')).map((key) => [key, restShape(value[key])]));
}

function structJson(struct: { fields: Record<string, any> }): Record<string, unknown> {
  return Object.fromEntries(Object.entries(struct.fields).map(([key, value]) => [key, valueJson(value)]));
}

function valueJson(value: any): unknown {
  switch (value.kind) {
    case 'structValue':
      return structJson(value.structValue);
    case 'listValue':
      return (value.listValue.values ?? []).map(valueJson);
    case 'stringValue':
      return value.stringValue;
    case 'numberValue':
      return value.numberValue;
    case 'boolValue':
      return value.boolValue;
    default:
      return null;
  }
}

/** JSON without null members (REST sends null where a proto leaves a field unset). */
export function withoutNulls(value: any): any {
  if (Array.isArray(value)) return value.map(withoutNulls);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([, member]) => member !== null && member !== undefined)
      .map(([key, member]) => [key, withoutNulls(member)]),
  );
}

/** JSON for a google.protobuf.Struct field of a request. */
export function struct(json: Record<string, unknown>): { fields: Record<string, unknown> } {
  const value = (member: unknown): Record<string, unknown> => {
    if (member === null) return { nullValue: 'NULL_VALUE' };
    if (typeof member === 'number') return { numberValue: member };
    if (typeof member === 'string') return { stringValue: member };
    if (typeof member === 'boolean') return { boolValue: member };
    if (Array.isArray(member)) return { listValue: { values: member.map(value) } };
    return { structValue: struct(member as Record<string, unknown>) };
  };
  return { fields: Object.fromEntries(Object.entries(json).map(([key, member]) => [key, value(member)])) };
}

export interface FileDescriptor {
  name: string;
  package: string;
  dependency: string[];
  messageType: { name: string; field: { name: string; typeName?: string }[]; nestedType: any[] }[];
  enumType: { name: string }[];
  service: { name: string; method: { name: string; inputType: string; outputType: string; serverStreaming?: boolean }[] }[];
}

/**
 * What a reflection client such as grpcurl receives: the service names, and the file defining the
 * service with every file it depends on (decoded FileDescriptorProtos).
 */
export async function reflect(port: number, symbol: string): Promise<{ services: string[]; files: FileDescriptor[] }> {
  const reflectionProto = path.join(
    path.dirname(createRequire(import.meta.url).resolve('@grpc/reflection/package.json')),
    'build/proto/grpc/reflection/v1/reflection.proto',
  );
  const loaded = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, LOADER_OPTIONS)) as any;
  const client = new loaded.grpc.reflection.v1.ServerReflection(`127.0.0.1:${port}`, grpc.credentials.createInsecure());
  try {
    const ask = (request: object) =>
      new Promise<any>((resolve, reject) => {
        const call = client.ServerReflectionInfo();
        call.on('data', (answer: any) => {
          resolve(answer);
          call.end();
        });
        call.on('error', reject);
        call.write(request);
      });
    const listed = await ask({ list_services: '' });
    const services = listed.list_services_response.service.map((service: { name: string }) => service.name);
    const answer = await ask({ file_containing_symbol: symbol });
    const FileDescriptorProto = descriptorTypes.FileDescriptorProto;
    const files = (answer.file_descriptor_response.file_descriptor_proto as Buffer[]).map(
      (bytes) => FileDescriptorProto.toObject(FileDescriptorProto.decode(bytes), { arrays: true, defaults: false }) as FileDescriptor,
    );
    return { services, files };
  } finally {
    client.close();
  }
}

/**
 * Type references a strict descriptor builder (protoc, Go's protodesc behind grpcurl) cannot resolve:
 * names not fully qualified, or defined in no file the referring file imports.
 */
export function unresolvedReferences(files: FileDescriptor[]): string[] {
  const byName = new Map(files.map((file) => [file.name, file]));
  const defined = new Map<string, string>();
  const index = (message: any, scope: string, file: string) => {
    defined.set(`${scope}.${message.name}`, file);
    for (const nested of message.nestedType ?? []) index(nested, `${scope}.${message.name}`, file);
    for (const enumType of message.enumType ?? []) defined.set(`${scope}.${message.name}.${enumType.name}`, file);
  };
  for (const file of files) {
    for (const message of file.messageType ?? []) index(message, `.${file.package}`, file.name);
    for (const enumType of file.enumType ?? []) defined.set(`.${file.package}.${enumType.name}`, file.name);
  }
  const problems: string[] = [];
  for (const file of files) {
    for (const dependency of file.dependency ?? [])
      if (!byName.has(dependency)) problems.push(`${file.name}: import ${dependency} not served`);
    const visible = new Set([file.name, ...(file.dependency ?? [])]);
    const check = (reference: string | undefined, where: string) => {
      if (!reference) return;
      const owner = defined.get(reference);
      if (!reference.startsWith('.') || !owner || !visible.has(owner)) problems.push(`${file.name}: ${where} -> ${reference}`);
    };
    const visit = (message: any) => {
      for (const field of message.field ?? []) check(field.typeName, `${message.name}.${field.name}`);
      for (const nested of message.nestedType ?? []) visit(nested);
    };
    for (const message of file.messageType ?? []) visit(message);
    for (const service of file.service ?? []) {
      for (const method of service.method ?? []) {
        check(method.inputType, `${service.name}.${method.name}`);
        check(method.outputType, `${service.name}.${method.name}`);
      }
    }
  }
  return problems;
}
