import { GrpcMethod, Payload } from '@nestjs/microservices';
import { Observable } from 'rxjs';
import type { Principal } from '../auth/principal.js';
import { GrpcCaller, GrpcPublisherOrAdmin } from '../grpc/grpc-auth.guard.js';
import { GRPC_SERVICE } from '../grpc/registry-grpc-server.js';
import { GrpcStreamCall, announceSubscribed } from '../grpc/grpc-stream.js';
import { type WatchEventsRequest, parseWatchEvents, platformEventMessage } from './events.grpc-messages.js';
import { WatchEvents } from './watch-events.js';
import { GrpcController } from '../grpc/grpc-controller.js';

/** The platform's event stream over gRPC: the use-case behind GET /v1/events. */
@GrpcController()
export class EventsGrpcController {
  constructor(private readonly watchEvents: WatchEvents) {}

  /**
   * Server streaming until the client cancels; heartbeats are not sent (gRPC keeps its own connection alive). A
   * refused request ends with its status; an accepted one gets its headers at once, before any event.
   */
  @GrpcMethod(GRPC_SERVICE, 'WatchEvents')
  @GrpcPublisherOrAdmin()
  async watch(
    @Payload() request: WatchEventsRequest,
    @GrpcCaller() principal: Principal,
    @GrpcStreamCall() call: Parameters<typeof announceSubscribed>[0],
  ) {
    const controller = new AbortController();
    const events = await this.watchEvents.watch(principal, parseWatchEvents(request), controller.signal);
    announceSubscribed(call);
    return new Observable<ReturnType<typeof platformEventMessage>>((subscriber) => {
      (async () => {
        for await (const event of events) if (event) subscriber.next(platformEventMessage(event));
        subscriber.complete();
      })().catch((error: unknown) => subscriber.error(error));
      return () => controller.abort();
    });
  }
}
