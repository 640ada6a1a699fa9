import { applyDecorators, Controller, UseFilters, UseGuards, UseInterceptors } from '@nestjs/common';
import { GrpcAuthGuard } from './grpc-auth.guard.js';
import { GrpcExceptionFilter } from './grpc-exception.filter.js';
import { GrpcMetricsInterceptor } from './grpc-metrics.interceptor.js';

/** A controller of the gRPC API: its calls authenticated (GrpcAuthGuard), counted and timed, their errors as gRPC statuses. */
export function GrpcController(): ClassDecorator {
  return applyDecorators(Controller(), UseGuards(GrpcAuthGuard), UseFilters(GrpcExceptionFilter), UseInterceptors(GrpcMetricsInterceptor));
}
