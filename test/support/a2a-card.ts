import { readFileSync } from 'node:fs';
import path from 'node:path';
import protobuf from 'protobufjs';
import { REPO_ROOT } from './skill-packages.js';

/**
 * Validates JSON against a message of the vendored A2A v1.0 proto (test/fixtures/a2a/a2a.proto, the
 * normative data model): every key a field of the message (its JSON name), every value of the field's
 * type, at most one member of each oneof, enums by name, and every field marked REQUIRED present.
 * Returns the problems found, each with its JSON pointer; none means valid.
 */
export function a2aProblems(messageName: string, value: unknown): string[] {
  const problems: string[] = [];
  checkMessage(root().lookupType(`lf.a2a.v1.${messageName}`), value, '', problems);
  return problems;
}

let cached: protobuf.Root | null = null;

function root(): protobuf.Root {
  if (cached) return cached;
  const loaded = new protobuf.Root();
  protobuf.parse(readFileSync(path.join(REPO_ROOT, 'test/fixtures/a2a/a2a.proto'), 'utf8'), loaded, { keepCase: false });
  for (const file of ['google/protobuf/struct.proto', 'google/protobuf/timestamp.proto', 'google/protobuf/empty.proto']) {
    const common = protobuf.common.get(file);
    if (common) loaded.addJSON(common.nested as protobuf.INamespace['nested'] & object);
  }
  loaded.resolveAll();
  cached = loaded;
  return loaded;
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function checkMessage(type: protobuf.Type, value: unknown, at: string, problems: string[]): void {
  if (type.fullName === '.google.protobuf.Struct') {
    if (!isObject(value)) problems.push(`${at}: a JSON object (Struct)`);
    return;
  }
  if (!isObject(value)) {
    problems.push(`${at}: a ${type.name} object`);
    return;
  }
  for (const key of Object.keys(value)) {
    if (!type.fields[key]) problems.push(`${at}/${key}: not a field of ${type.name}`);
  }
  for (const field of type.fieldsArray) {
    const present = value[field.name] !== undefined;
    if (!present) {
      if (field.options?.['(google.api.field_behavior)'] === 'REQUIRED') problems.push(`${at}/${field.name}: REQUIRED in ${type.name}`);
      continue;
    }
    checkField(field, value[field.name], `${at}/${field.name}`, problems);
  }
  for (const oneof of type.oneofsArray.filter((candidate) => !candidate.name.startsWith('_'))) {
    const set = oneof.oneof.filter((name) => value[name] !== undefined);
    if (set.length > 1) problems.push(`${at}: more than one of ${type.name}.${oneof.name} (${set.join(', ')})`);
  }
}

function checkField(field: protobuf.Field, value: unknown, at: string, problems: string[]): void {
  if (field instanceof protobuf.MapField) {
    if (!isObject(value)) problems.push(`${at}: a map`);
    else for (const [key, entry] of Object.entries(value)) checkScalarOrMessage(field, entry, `${at}/${key}`, problems);
    return;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) problems.push(`${at}: a list`);
    else value.forEach((item, index) => checkScalarOrMessage(field, item, `${at}/${index}`, problems));
    return;
  }
  checkScalarOrMessage(field, value, at, problems);
}

function checkScalarOrMessage(field: protobuf.Field, value: unknown, at: string, problems: string[]): void {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return checkMessage(resolved, value, at, problems);
  if (resolved instanceof protobuf.Enum) {
    if (typeof value !== 'string' || !(value in resolved.values)) problems.push(`${at}: one of ${Object.keys(resolved.values).join(', ')}`);
    return;
  }
  const expected = field.type === 'string' || field.type === 'bytes' ? 'string' : field.type === 'bool' ? 'boolean' : 'number';
  const ok = typeof value === expected || (expected === 'number' && typeof value === 'string' && /^-?\d+$/.test(value));
  if (!ok) problems.push(`${at}: a ${field.type}`);
}
