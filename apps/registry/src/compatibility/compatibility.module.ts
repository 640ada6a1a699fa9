import { Module } from '@nestjs/common';
import { SkillsModule } from '../skills/skills.module.js';
import { CompatibilityQueries } from './compatibility-queries.js';
import { CompatibilityController } from './compatibility.controller.js';
import { CompatibilityGrpcController } from './compatibility.grpc-controller.js';

/** Schema compatibility between versions: the checker over HTTP and gRPC (registration applies it in the intake). */
@Module({
  imports: [SkillsModule],
  controllers: [CompatibilityController, CompatibilityGrpcController],
  providers: [CompatibilityQueries],
  exports: [CompatibilityQueries],
})
export class CompatibilityModule {}
