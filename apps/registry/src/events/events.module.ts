import { Module } from '@nestjs/common';
import { ExecutionsModule } from '../executions/executions.module.js';
import { EventsController } from './events.controller.js';
import { EventsGrpcController } from './events.grpc-controller.js';
import { PlatformEventStream } from './platform-event-stream.js';
import { WatchEvents } from './watch-events.js';

/** Seed 003 §7: the subscription to every event of the platform (SSE GET /v1/events, gRPC WatchEvents). */
@Module({
  imports: [ExecutionsModule],
  controllers: [EventsController, EventsGrpcController],
  providers: [PlatformEventStream, WatchEvents],
})
export class EventsModule {}
