/**
 * Every Redis key and channel of ours begins with the prefix, so that on a Redis Cluster, where the prefix
 * holds a hash tag (`{skill-registry}`), they all live in the prefix's one slot and no command crosses
 * slots: BullMQ's queue (`<prefix>:skill-executions:*`, whose scripts touch several keys at once), an
 * execution's event stream and its log-line counter (one script), the platform's stream `<prefix>:events`
 * (written in the same script as each execution's stream, platform-events.ts), the lifecycle stream and the
 * hooks' rate counters (`<prefix>:hooks:rate:*`, libs/hooks). One slot also keeps the order of commands sent
 * on one connection, as on one server. The cancellation channel is classic pub/sub, which a cluster carries
 * to every node whatever its name. (The cost: this application's Redis work is one master's; docs/scaling.md.)
 */

/** An execution's event stream (one per execution; any registry replica reads it). */
export function executionEventsKey(prefix: string, executionId: string): string {
  return `${prefix}:execution:${executionId}:events`;
}

/** The count of an execution's log lines, updated in one script with its stream. */
export function executionLogCountKey(prefix: string, executionId: string): string {
  return `${prefix}:execution:${executionId}:log-count`;
}

/** Redis pub/sub channel on which cancellations of running executions are announced. */
export function cancelChannel(prefix: string): string {
  return `${prefix}:executions:cancel`;
}

/** Redis stream of lifecycle moves, for any service that wants to follow the catalog. */
export function lifecycleStream(prefix: string): string {
  return `${prefix}:lifecycle:events`;
}
