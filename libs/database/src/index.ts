export * from './migrator.js';
export * from './paths.js';
export * from './prisma.js';
export * from './pg-listener.js';
export * from './pg-pool.js';
