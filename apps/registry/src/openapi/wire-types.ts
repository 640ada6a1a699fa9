import { z } from 'zod';

/** Building blocks of the wire views. */

/** A moment as the API writes it (`Date.toISOString()`). */
export const isoDateTime = z.iso.datetime();

/** Any JSON object (inputs, outputs, metadata, evidence). */
export const jsonObject = z.record(z.string(), z.unknown());

/** A stored JSON Schema (2020-12), served as it is. */
export const jsonSchemaDocument = z.record(z.string(), z.unknown()).describe('A JSON Schema (2020-12), as stored');

/** `{ items, next_cursor }` pages: null when there is no next page. */
export const nextCursor = z.string().nullable().describe('Pass as `cursor` for the next page; null on the last page');
