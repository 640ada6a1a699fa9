import type { PlatformEvent } from '#executions/index.js';
import { compact, given, withProtoFields } from '../grpc/grpc-fields.js';
import { toStruct, toTimestamp } from '../grpc/proto-values.js';
import { parseEventsQuery } from './events.dto.js';
import type { EventsFilter } from './watch-events.js';

export interface WatchEventsRequest {
  types?: string[];
  skill?: string;
  session_id?: string;
  from_id?: string;
}

/** The REST query's names of the request's fields, as the proto spells them (`type.3` → `types.3`). */
const PROTO_NAMES: Record<string, string> = {
  type: 'types',
  from: 'from_id',
  ...Object.fromEntries(Array.from({ length: 20 }, (_, index) => [`type.${index}`, `types.${index}`])),
};

/** The request through the REST query's parser (same types, limits and id format), errors named by proto field. */
export function parseWatchEvents(request: WatchEventsRequest): EventsFilter {
  return withProtoFields(
    () =>
      parseEventsQuery(
        compact({
          type: request.types && request.types.length > 0 ? request.types : undefined,
          skill: given(request.skill),
          session_id: given(request.session_id),
          from: given(request.from_id),
        }),
        undefined,
      ),
    PROTO_NAMES,
  );
}

export function platformEventMessage(event: PlatformEvent) {
  return {
    id: event.id,
    type: event.type,
    at: toTimestamp(event.at),
    execution_id: event.execution_id ?? '',
    skill: event.skill ?? '',
    session_id: event.session_id ?? '',
    data: toStruct(event.data),
  };
}
