export * from './execution-job.js';
export * from './execution-queue.js';
export * from './execution-consumer.js';
