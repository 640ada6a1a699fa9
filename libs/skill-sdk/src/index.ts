export * from './context.js';
export * from './errors.js';
export * from './schema.js';
export * from './skill-base.js';
export * from './testing.js';
