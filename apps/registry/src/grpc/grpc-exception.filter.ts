import { type ArgumentsHost, Catch, Logger, type RpcExceptionFilter } from '@nestjs/common';
import { type Observable, throwError } from 'rxjs';
import { internalError, toGrpcError } from './grpc-errors.js';

/** The gRPC transport's one error mapper: domain and auth errors to status codes, anything else to a logged INTERNAL. */
@Catch()
export class GrpcExceptionFilter implements RpcExceptionFilter<unknown> {
  private readonly logger = new Logger('GrpcExceptions');

  catch(error: unknown, _host: ArgumentsHost): Observable<never> {
    const mapped = toGrpcError(error);
    if (mapped) return throwError(() => mapped);
    this.logger.error(`unexpected error in a gRPC call: ${(error as Error)?.stack ?? String(error)}`);
    return throwError(() => internalError());
  }
}
