import { Controller, Get, Req, Res } from '@nestjs/common';
import { ApiExcludeController } from '@nestjs/swagger';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { Public } from '../auth/auth.guard.js';
import { ConsoleResponder } from './console-response.js';

/** The browser console's static files at /console (not part of the REST API, so not in its document). */
@ApiExcludeController()
@Public()
@Controller('console')
export class ConsoleController {
  constructor(private readonly send: ConsoleResponder) {}

  @Get()
  index(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send.file('', request, reply);
  }

  @Get('*')
  file(@Req() request: FastifyRequest, @Res() reply: FastifyReply): void {
    this.send.file((request.params as { '*'?: string })['*'] ?? '', request, reply);
  }
}
