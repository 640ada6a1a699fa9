/**
 * Every Redis key and channel of ours, in one place, laid out so that no command crosses hash slots on
 * a Redis Cluster (and nothing changes on one server):
 *
 * - BullMQ's keys, `<prefix>:skill-executions:*`, and the lifecycle stream `<prefix>:lifecycle:events`:
 *   in the prefix's slot. On a cluster the prefix holds a hash tag (`{skill-registry}`), so that the
 *   queue's multi-key scripts find all their keys on one node.
 * - An execution's event stream and its log-line counter: `<prefix without braces>:execution:{<id>}:…`.
 *   Their hash tag is the execution id: the two keys one script touches share a slot, and the streams of
 *   all executions spread over every shard rather than crowding the queue's.
 * - The cancellation channel `<prefix>:executions:cancel`: classic pub/sub, which a cluster carries to
 *   every node whatever the channel's slot.
 */

/** The prefix without its hash-tag braces: keys built on it take a hash tag of their own. */
function untagged(prefix: string): string {
  return prefix.replace(/[{}]/g, '');
}

/** An execution's event stream (one per execution; any registry replica reads it). */
export function executionEventsKey(prefix: string, executionId: string): string {
  return `${untagged(prefix)}:execution:{${executionId}}:events`;
}

/** The count of an execution's log lines, updated in one script with its stream (same slot). */
export function executionLogCountKey(prefix: string, executionId: string): string {
  return `${untagged(prefix)}:execution:{${executionId}}:log-count`;
}

/** Redis pub/sub channel on which cancellations of running executions are announced. */
export function cancelChannel(prefix: string): string {
  return `${prefix}:executions:cancel`;
}

/** Redis stream of lifecycle moves, for any service that wants to follow the catalog. */
export function lifecycleStream(prefix: string): string {
  return `${prefix}:lifecycle:events`;
}
