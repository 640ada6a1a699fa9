export * from './execution-events.js';
export * from './platform-events.js';
export * from './execution-model.js';
export * from './executions.repository.js';
export * from './queue/index.js';
export * from './finished-announcements.js';
export * from './group-commit.js';
export * from './batched-execution-writes.js';
