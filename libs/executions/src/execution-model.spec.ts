import { isRetryable, maxAttemptsFor, retryDelayMs } from './execution-model.js';

describe('retry policy', () => {
  it('gives non-idempotent skills exactly one attempt whatever retries says', () => {
    expect(maxAttemptsFor({ idempotent: false, retries: 3 })).toBe(1);
    expect(maxAttemptsFor({ idempotent: true, retries: 3 })).toBe(4);
    expect(maxAttemptsFor({ idempotent: true, retries: 0 })).toBe(1);
  });

  it('retries only retryable codes and only for idempotent skills', () => {
    const error = (code: string) => ({ code, message: '', details: {} }) as never;
    for (const code of ['HANDLER_ERROR', 'TOOL_ERROR', 'TOOL_TIMEOUT', 'HANDLER_TIMEOUT', 'WORKER_LOST']) {
      expect(isRetryable(error(code), true)).toBe(true);
      expect(isRetryable(error(code), false)).toBe(false);
    }
    for (const code of ['INPUT_INVALID', 'OUTPUT_INVALID', 'PRECONDITION_FAILED', 'CANCELLED']) {
      expect(isRetryable(error(code), true)).toBe(false);
    }
  });

  it('backs off exponentially with bounded jitter', () => {
    expect(retryDelayMs(2, 500, 30_000, () => 0)).toBe(250);
    expect(retryDelayMs(2, 500, 30_000, () => 1)).toBe(500);
    expect(retryDelayMs(3, 500, 30_000, () => 1)).toBe(1000);
    expect(retryDelayMs(4, 500, 30_000, () => 0.5)).toBe(1500);
    expect(retryDelayMs(20, 500, 30_000, () => 1)).toBe(30_000);
  });
});
