import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { z } from 'zod';
import { RequestInvalid } from '../problem/domain-errors.js';

const baselineQuery = z
  .object({
    bytes: z.coerce
      .number()
      .int()
      .min(2)
      .max(1024 * 1024),
  })
  .strict();

/**
 * Benchmark baseline (mounted only with BENCH_BASELINE_ROUTE=true): a constant JSON body of the
 * requested size, served through the same Nest pipeline (guard, query parsing, filter, serializer)
 * as the routes bench/search measures, so it can compare against it in one run. (bench/registry-read
 * compares against a bare Fastify process instead: this route hides the framework's cost.)
 */
@ApiExcludeController()
@Controller('bench')
export class BaselineController {
  private readonly bodies = new Map<number, Record<string, string>>();

  @Get('baseline')
  baseline(@Query() rawQuery: Record<string, unknown>): Record<string, string> {
    const parsed = baselineQuery.safeParse(rawQuery);
    if (!parsed.success)
      throw new RequestInvalid('bytes must be an integer between 2 and 1048576', [{ field: 'bytes', message: parsed.error.message }]);
    const { bytes } = parsed.data;
    let body = this.bodies.get(bytes);
    if (!body) {
      const overhead = JSON.stringify({ padding: '' }).length;
      body = { padding: 'x'.repeat(Math.max(0, bytes - overhead)) };
      this.bodies.set(bytes, body);
    }
    return body;
  }
}
