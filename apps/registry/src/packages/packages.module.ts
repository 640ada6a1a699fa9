import { Module } from '@nestjs/common';
import { PackageContents } from './package-contents.js';
import { PackageFilesController } from './package-files.controller.js';
import { SkillsModule } from '../skills/skills.module.js';
import { PackagesGrpcController } from './packages.grpc-controller.js';

/** Serving stored packages back (GET …/files, …/files/*, …/package); publishing is versions/. */
@Module({
  imports: [SkillsModule],
  controllers: [PackageFilesController, PackagesGrpcController],
  providers: [PackageContents],
  exports: [PackageContents],
})
export class PackagesModule {}
