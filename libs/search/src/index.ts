export * from './ranking.js';
export * from './search-document.js';
export * from './search-index.js';
export * from './tokenizer.js';
