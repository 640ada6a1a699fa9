import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import { RegistryMetrics } from '../metrics/registry-metrics.js';

/**
 * Counts and times every RPC by method and outcome (the error's stable code, or OK). Applied to the gRPC
 * controllers only (GrpcController), not globally: a global interceptor puts every REST request through
 * Nest's interceptor chain (rxjs) too, which cost the registry several percent of its CPU per request.
 */
@Injectable()
export class GrpcMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: RegistryMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    const started = performance.now();
    const method = context.getHandler().name;
    const done = (status: string) => this.metrics.observe('grpc', method, 'rpc', status, performance.now() - started);
    return next.handle().pipe(
      tap({
        complete: () => done('OK'),
        error: (error: { code?: unknown }) => done(typeof error?.code === 'string' ? error.code : 'ERROR'),
      }),
    );
  }
}
