import { Controller, Get, Query } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import { IsInt, Max, Min } from 'class-validator';
import { Type } from 'class-transformer';

export class BaselineQuery {
  @Type(() => Number)
  @IsInt()
  @Min(2)
  @Max(1024 * 1024)
  bytes!: number;
}

/**
 * Benchmark baseline (mounted only with BENCH_BASELINE_ROUTE=true): a constant JSON body of the
 * requested size, served through the same pipeline (guard, pipes, filter, serializer) as real
 * reads, so bench/registry-read can compare against it in one run.
 */
@ApiExcludeController()
@Controller('bench')
export class BaselineController {
  private readonly bodies = new Map<number, Record<string, string>>();

  @Get('baseline')
  baseline(@Query() query: BaselineQuery): Record<string, string> {
    let body = this.bodies.get(query.bytes);
    if (!body) {
      const overhead = JSON.stringify({ padding: '' }).length;
      body = { padding: 'x'.repeat(Math.max(0, query.bytes - overhead)) };
      this.bodies.set(query.bytes, body);
    }
    return body;
  }
}
