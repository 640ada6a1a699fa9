import { status } from '@grpc/grpc-js';
import { CursorInvalid } from '../../../../libs/contracts/src/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import * as domainErrors from '../problem/domain-errors.js';
import {
  ConcurrentModification,
  DomainError,
  ExecutionFinished,
  ExecutionNotFound,
  IdempotencyKeyReused,
  InputInvalid,
  InvalidTransition,
  PackageNotFound,
  PathOutsideSkillPaths,
  PromotionEvidenceMissing,
  QueueUnavailable,
  RequestInvalid,
  SkillNotExecutable,
  SkillNotFound,
  VersionImmutable,
} from '../problem/domain-errors.js';
import { GRPC_STATUS_BY_CODE, toGrpcError } from './grpc-errors.js';

describe('gRPC error mapping', () => {
  it.each([
    [new SkillNotFound('x'), status.NOT_FOUND],
    [new ExecutionNotFound('id'), status.NOT_FOUND],
    [new PackageNotFound('p'), status.NOT_FOUND],
    [new RequestInvalid('bad', [{ field: 'limit', message: 'too big' }]), status.INVALID_ARGUMENT],
    [new InputInvalid('x', '1.0.0', [{ pointer: '/a', message: 'must be string' }]), status.INVALID_ARGUMENT],
    [new CursorInvalid('not a cursor'), status.INVALID_ARGUMENT],
    [new PathOutsideSkillPaths('/etc', ['./skills']), status.INVALID_ARGUMENT],
    [new InvalidTransition('x', '1.0.0', 'DRAFT', 'ACTIVE', []), status.FAILED_PRECONDITION],
    [new PromotionEvidenceMissing('x', '1.0.0', ['no examples'], {}), status.FAILED_PRECONDITION],
    [new VersionImmutable('x', '1.0.0', 'ACTIVE', '/p'), status.FAILED_PRECONDITION],
    [new SkillNotExecutable('x', '1.0.0', 'DRAFT'), status.FAILED_PRECONDITION],
    [new ExecutionFinished('id', 'SUCCEEDED'), status.FAILED_PRECONDITION],
    [new IdempotencyKeyReused('k', 'id'), status.ALREADY_EXISTS],
    [new ConcurrentModification('x', '1.0.0'), status.ABORTED],
    [new QueueUnavailable('down'), status.UNAVAILABLE],
    [new Unauthenticated('who?'), status.UNAUTHENTICATED],
    [new Forbidden('agent'), status.PERMISSION_DENIED],
  ])('case %# maps to its status, with the stable code in the error-code trailer', (error, expected) => {
    const mapped = toGrpcError(error);
    expect(mapped?.code).toBe(expected);
    const code = (error as unknown as { code?: string }).code;
    expect(mapped?.metadata.get('error-code')).toEqual([error instanceof CursorInvalid ? 'INVALID_CURSOR' : code]);
    expect(mapped?.metadata.get('grpc-status-details-bin')[0]).toBeInstanceOf(Buffer);
  });

  it('maps every domain error code the registry defines', () => {
    const codes = Object.values(domainErrors)
      .filter((candidate): candidate is typeof DomainError => typeof candidate === 'function' && candidate.prototype instanceof DomainError)
      .map((ErrorClass) => Object.create(ErrorClass.prototype) as DomainError)
      .map((instance) => {
        // `code` is an instance field: read it from a constructed instance's class source.
        const source = instance.constructor.toString();
        return /code = '([A-Z_]+)'/.exec(source)?.[1];
      });
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(GRPC_STATUS_BY_CODE[code as string]).toBeDefined();
  });

  it('leaves unexpected errors to the filter (logged, INTERNAL)', () => {
    expect(toGrpcError(new Error('boom'))).toBeNull();
    expect(toGrpcError('a string')).toBeNull();
  });
});
