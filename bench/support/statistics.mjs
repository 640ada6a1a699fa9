// Small statistics the benches report with.

/** The median of `values` (the lower middle one for an even count). */
export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor((values.length - 1) / 2)];
