export * from './package-files.js';
export * from './package-store.js';
export * from './package-cache.js';
export * from './package-archive.js';
export * from './media-type.js';
