import type { PackageDefinition } from '@grpc/proto-loader';
// protobufjs comes with @grpc/proto-loader; its descriptor extension reads and writes FileDescriptorProto.
import descriptorTypes from 'protobufjs/ext/descriptor/index.js';

/**
 * proto-loader's file descriptors, fixed for server reflection clients that resolve types strictly
 * (grpcurl, Postman; see grpc/grpc-node#2958 and fullstorydev/grpcurl#459): proto-loader merges
 * every file of a package into one (`google_protobuf.proto`), declares no imports and leaves type
 * names relative, so grpcurl can list the service but not describe or call it ("cannot resolve
 * type google.protobuf.Struct"); it also names map entries `By_status` where protoc and Go require
 * `ByStatusEntry`. Here the well-known types go back to their canonical files, map entries get
 * their canonical names, every type name is fully qualified and every file imports what it uses.
 * Checked against protoc (`--descriptor_set_in`) and by test/e2e/grpc.e2e-spec.ts.
 */
interface FieldLike {
  name: string;
  typeName?: string;
}
interface MessageLike {
  name: string;
  field?: FieldLike[];
  nestedType?: MessageLike[];
  options?: { mapEntry?: boolean };
  enumType?: { name: string }[];
}
interface FileLike {
  name: string;
  package?: string;
  dependency: string[];
  messageType?: MessageLike[];
  enumType?: { name: string }[];
  service?: { name: string; method?: { inputType?: string; outputType?: string }[] }[];
  syntax?: string;
}

/** Canonical files of the well-known types proto-loader may bundle. */
const WELL_KNOWN_FILES: Record<string, string> = {
  Struct: 'google/protobuf/struct.proto',
  Value: 'google/protobuf/struct.proto',
  ListValue: 'google/protobuf/struct.proto',
  NullValue: 'google/protobuf/struct.proto',
  Timestamp: 'google/protobuf/timestamp.proto',
  Duration: 'google/protobuf/duration.proto',
  Empty: 'google/protobuf/empty.proto',
  Any: 'google/protobuf/any.proto',
};

export function reflectionPackageDefinition(definition: PackageDefinition): PackageDefinition {
  const FileDescriptorProto = descriptorTypes.FileDescriptorProto;
  const decoded = new Map<string, FileLike>();
  for (const entry of Object.values(definition)) {
    for (const bytes of (entry as { fileDescriptorProtos?: Buffer[] }).fileDescriptorProtos ?? []) {
      const file = FileDescriptorProto.decode(bytes) as unknown as FileLike;
      if (!decoded.has(file.name)) decoded.set(file.name, file);
    }
  }
  const files = [...decoded.values()].flatMap(splitWellKnown);
  for (const file of files) for (const message of file.messageType ?? []) renameMapEntries(message);
  const definedIn = new Map<string, FileLike>();
  for (const file of files) {
    const prefix = file.package ? `.${file.package}` : '';
    for (const message of file.messageType ?? []) indexMessage(message, prefix, file, definedIn);
    for (const enumType of file.enumType ?? []) definedIn.set(`${prefix}.${enumType.name}`, file);
  }
  for (const file of files) {
    const imports = new Set<string>();
    const qualify = (name: string | undefined, scope: string): string | undefined => {
      // An empty type name is "set" for strict builders (protoc: `"" is not defined`): leave it out.
      if (!name) return undefined;
      const full = resolve(name, scope, definedIn);
      const owner = definedIn.get(full);
      if (owner && owner !== file) imports.add(owner.name);
      return full;
    };
    const prefix = file.package ? `.${file.package}` : '';
    const visit = (message: MessageLike, scope: string) => {
      const own = `${scope}.${message.name}`;
      for (const field of message.field ?? []) field.typeName = qualify(field.typeName, own);
      for (const nested of message.nestedType ?? []) visit(nested, own);
    };
    for (const message of file.messageType ?? []) visit(message, prefix);
    for (const service of file.service ?? []) {
      for (const method of service.method ?? []) {
        method.inputType = qualify(method.inputType, prefix);
        method.outputType = qualify(method.outputType, prefix);
      }
    }
    file.dependency = [...imports].sort();
  }
  const encoded = files.map((file) => Buffer.from(FileDescriptorProto.encode(FileDescriptorProto.fromObject(file)).finish()));
  return Object.fromEntries(
    Object.entries(definition).map(([name, entry]) => [name, { ...entry, fileDescriptorProtos: encoded }]),
  ) as PackageDefinition;
}

/** A file of package google.protobuf as one file per canonical well-known-type file. */
function splitWellKnown(file: FileLike): FileLike[] {
  if (file.package !== 'google.protobuf') return [file];
  const byFile = new Map<string, FileLike>();
  const target = (typeName: string) => {
    const name = WELL_KNOWN_FILES[typeName] ?? file.name;
    let split = byFile.get(name);
    if (!split) {
      split = { name, package: file.package, dependency: [], messageType: [], enumType: [], syntax: file.syntax };
      byFile.set(name, split);
    }
    return split;
  };
  for (const message of file.messageType ?? []) target(message.name).messageType?.push(message);
  for (const enumType of file.enumType ?? []) target(enumType.name).enumType?.push(enumType);
  return [...byFile.values()];
}

/** protoc's and Go's name of the entry type of map field `field`: `by_status` -> `ByStatusEntry`. */
function mapEntryName(field: string): string {
  return `${field.replace(/(?:^|_)([^_]?)/g, (_match, first: string) => first.toUpperCase())}Entry`;
}

function renameMapEntries(message: MessageLike): void {
  for (const nested of message.nestedType ?? []) {
    renameMapEntries(nested);
    if (!nested.options?.mapEntry) continue;
    const field = message.field?.find((candidate) => candidate.typeName?.split('.').pop() === nested.name);
    if (!field) continue;
    const canonical = mapEntryName(field.name);
    field.typeName = `${(field.typeName as string).slice(0, -nested.name.length)}${canonical}`;
    nested.name = canonical;
  }
}

function indexMessage(message: MessageLike, scope: string, file: FileLike, definedIn: Map<string, FileLike>): void {
  const name = `${scope}.${message.name}`;
  definedIn.set(name, file);
  for (const nested of message.nestedType ?? []) indexMessage(nested, name, file, definedIn);
  for (const enumType of message.enumType ?? []) definedIn.set(`${name}.${enumType.name}`, file);
}

/** Protobuf name resolution: a relative name is looked up from the innermost scope outwards. */
function resolve(name: string, scope: string, definedIn: Map<string, FileLike>): string {
  if (name.startsWith('.')) return name;
  for (let current = scope; ; current = current.slice(0, current.lastIndexOf('.'))) {
    const candidate = `${current}.${name}`;
    if (definedIn.has(candidate)) return candidate;
    if (current === '') return `.${name}`;
  }
}
