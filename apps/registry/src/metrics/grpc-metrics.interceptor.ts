import { type CallHandler, type ExecutionContext, Injectable, type NestInterceptor } from '@nestjs/common';
import { type Observable, tap } from 'rxjs';
import { RegistryMetrics } from './registry-metrics.js';

/** Counts and times every RPC by method and outcome (the error's stable code, or OK). */
@Injectable()
export class GrpcMetricsInterceptor implements NestInterceptor {
  constructor(private readonly metrics: RegistryMetrics) {}

  intercept(context: ExecutionContext, next: CallHandler): Observable<unknown> {
    if (context.getType() !== 'rpc') return next.handle();
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
