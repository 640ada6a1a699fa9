import { status } from '@grpc/grpc-js';
import { CursorInvalid } from '#contracts/index.js';
import { Forbidden, Unauthenticated } from '../auth/token-authenticator.js';
import * as domainErrors from '../problem/domain-errors.js';
import {
  ConcurrentModification,
  DatabaseUnavailable,
  DomainError,
  ExecutionFinished,
  ExecutionNotFound,
  IdempotencyKeyReused,
  InputInvalid,
  InvalidTransition,
  NotAPackage,
  PackageNotFound,
  PathOutsideSkillPaths,
  PromotionEvidenceMissing,
  QueueUnavailable,
  RequestInvalid,
  SkillNotExecutable,
  SkillNotFound,
  TwinRefused,
  VersionImmutable,
} from '../problem/domain-errors.js';
import { TwinFailure, type TwinFailureReason } from '#twin/index.js';
import { grpcStatusOf } from '../problem/error-catalog.js';
import { toGrpcError } from './grpc-errors.js';

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
    [new VersionImmutable('x', '1.0.0', 'ACTIVE', 'sha256:00'), status.FAILED_PRECONDITION],
    [new SkillNotExecutable('x', '1.0.0', 'DRAFT'), status.FAILED_PRECONDITION],
    [new ExecutionFinished('id', 'SUCCEEDED'), status.FAILED_PRECONDITION],
    [new IdempotencyKeyReused('k', 'id'), status.ALREADY_EXISTS],
    [new ConcurrentModification('x', '1.0.0'), status.ABORTED],
    [new QueueUnavailable('down'), status.UNAVAILABLE],
    [new DatabaseUnavailable(), status.UNAVAILABLE],
    [new NotAPackage('skills/simulation'), status.INVALID_ARGUMENT],
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
      // TwinRefused takes its code from the twin's reason: its codes are checked by reason below.
      .filter((ErrorClass) => ErrorClass !== (TwinRefused as unknown))
      .map((ErrorClass) => Object.create(ErrorClass.prototype) as DomainError)
      .map((instance) => {
        // `code` is an instance field: read it from a constructed instance's class source.
        const source = instance.constructor.toString();
        return /code = '([A-Z_]+)'/.exec(source)?.[1];
      });
    expect(codes.length).toBeGreaterThan(10);
    for (const code of codes) expect(grpcStatusOf(code as string)).toBeDefined();
  });

  it('maps every reason a twin operation is refused for to its status and stable code', () => {
    // A Record over the reason type: a reason added to libs/twin without an entry here fails the type check.
    const expected: Record<TwinFailureReason, [status, string]> = {
      BRANCH_NOT_FOUND: [status.NOT_FOUND, 'TWIN_BRANCH_NOT_FOUND'],
      BRANCH_EXISTS: [status.ALREADY_EXISTS, 'TWIN_BRANCH_EXISTS'],
      WORK_PRODUCT_NOT_FOUND: [status.NOT_FOUND, 'WORK_PRODUCT_NOT_FOUND'],
      REVISION_NOT_FOUND: [status.NOT_FOUND, 'REVISION_NOT_FOUND'],
      KIND_MISMATCH: [status.FAILED_PRECONDITION, 'KIND_MISMATCH'],
      INVALID: [status.INVALID_ARGUMENT, 'VALIDATION_FAILED'],
      TOO_LARGE: [status.RESOURCE_EXHAUSTED, 'TWIN_TOO_LARGE'],
      MEDIA_TYPE_UNSUPPORTED: [status.INVALID_ARGUMENT, 'UNSUPPORTED_MEDIA_TYPE'],
    };
    for (const [reason, [code, errorCode]] of Object.entries(expected)) {
      const mapped = toGrpcError(new TwinFailure(reason as TwinFailureReason, 'refused', {}, [{ field: 'name', message: 'bad' }]));
      expect({ reason, code: mapped?.code, errorCode: mapped?.metadata.get('error-code') }).toEqual({
        reason,
        code,
        errorCode: [errorCode],
      });
    }
  });

  it('tells when to retry an unavailable dependency (RetryInfo, as REST says Retry-After), and only then', () => {
    // Any { type_url, value: RetryInfo { retry_delay: Duration { seconds: 2 } } }
    const retryInfo = Buffer.concat([
      Buffer.from('type.googleapis.com/google.rpc.RetryInfo'),
      Buffer.from([0x12, 0x04, 0x0a, 0x02, 0x08, 0x02]),
    ]);
    for (const error of [new QueueUnavailable('down'), new DatabaseUnavailable()]) {
      const [details] = toGrpcError(error)?.metadata.get('grpc-status-details-bin') ?? [];
      expect((details as Buffer).includes(retryInfo)).toBe(true);
    }
    const [notFound] = toGrpcError(new ExecutionNotFound('x'))?.metadata.get('grpc-status-details-bin') ?? [];
    expect((notFound as Buffer).includes('RetryInfo')).toBe(false);
  });

  it('answers an unreachable database, whatever the driver raised, as UNAVAILABLE DATABASE_UNAVAILABLE', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const terminated = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
    for (const error of [refused, terminated, new Error('wrapped', { cause: refused })]) {
      const mapped = toGrpcError(error);
      expect(mapped?.code).toBe(status.UNAVAILABLE);
      expect(mapped?.metadata.get('error-code')).toEqual(['DATABASE_UNAVAILABLE']);
    }
  });

  it('never echoes a long request value into the trailers (a 100 KB name stays under 4 KiB of metadata)', () => {
    const mapped = toGrpcError(new SkillNotFound('x'.repeat(100_000)))!;
    expect(mapped.code).toBe(status.NOT_FOUND);
    expect(mapped.details.length).toBeLessThan(1200);
    const size = Object.entries(mapped.metadata.toHttp2Headers()).reduce((sum, [key, value]) => sum + key.length + String(value).length, 0);
    expect(size).toBeLessThan(4096);
  });

  it('leaves unexpected errors to the filter (logged, INTERNAL)', () => {
    expect(toGrpcError(new Error('boom'))).toBeNull();
    expect(toGrpcError('a string')).toBeNull();
  });
});
