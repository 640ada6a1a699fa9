export * from './migrator.js';
export * from './paths.js';
export * from './prisma.js';
