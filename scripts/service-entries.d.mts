/** Service → its compiled entry, relative to the root (see service-entries.mjs). */
export const SERVICE_SOURCES: Record<'registry' | 'executor' | 'spice' | 'calculix' | 'gmsh' | 'kicad', string>;
export type Service = keyof typeof SERVICE_SOURCES;
/** A service's bundle, relative to the root. */
export function serviceBundle(service: Service): string;
/** The absolute path of a service's bundle in this checkout. */
export function serviceEntry(service: Service): string;
