import type { SchemaChange } from './compatibility-report.js';
import { describePointer } from './json-pointer.js';
import type { PointerMap } from './pointer-map.js';

/** The sentence with its leading pointer (and the branch pointers below it) written as in the schema. */
function relocateMessage(message: string, translated: string, original: string): string {
  const lead = `${describePointer(translated)}:`;
  if (translated === original || !message.startsWith(lead)) return message;
  const rest = message.slice(lead.length);
  // Branch pointers a message names sit below its leading pointer (`/x/oneOf/1`).
  const relocated = translated === '' ? rest : rest.split(`${translated}/`).join(`${original}/`);
  return `${describePointer(original)}:${relocated}`;
}

/**
 * A change found on the 2020-12 translations, located in the schemas as written: old_pointer,
 * new_pointer and the pointer a message starts with (the new one, or the old one where the old schema
 * is the side that must accept).
 */
export function relocateChange(change: SchemaChange, oldPointers: PointerMap, newPointers: PointerMap): SchemaChange {
  const oldPointer = oldPointers.toOriginal(change.old_pointer);
  const newPointer = newPointers.toOriginal(change.new_pointer);
  const leadsWithNew = change.message.startsWith(`${describePointer(change.new_pointer)}:`);
  const message = leadsWithNew
    ? relocateMessage(change.message, change.new_pointer, newPointer)
    : relocateMessage(change.message, change.old_pointer, oldPointer);
  return { ...change, old_pointer: oldPointer, new_pointer: newPointer, message };
}
