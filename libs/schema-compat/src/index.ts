export * from './compatibility-report.js';
export * from './check-compatibility.js';
export * from './invalid-schema-error.js';
