export * from './skill-version.js';
export * from './skill-version-reader.js';
