export * from './cursor.js';
export * from './lifecycle.js';
export * from './json-schema-validator.js';
export * from './environment.js';
export * from './topology.js';
export * from './strict-json.js';
export * from './examples.js';
export * from './skill-tools.js';
