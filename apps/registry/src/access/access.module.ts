import { Module } from '@nestjs/common';
import { AccessController } from './access.controller.js';
import { DescribeAccess } from './describe-access.js';

/** GET /v1/access: what the caller's token may do (the console shows only those actions). */
@Module({ controllers: [AccessController], providers: [DescribeAccess] })
export class AccessModule {}
