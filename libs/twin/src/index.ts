export * from './constraint-kinds.js';
export * from './twin-failure.js';
export * from './twin-rules.js';
export * from './twin-store.js';
export * from './twin-views.js';
