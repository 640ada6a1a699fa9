import { Module } from '@nestjs/common';
import { PackageContents } from './package-contents.js';
import { PackageFilesController } from './package-files.controller.js';
import { SkillsModule } from '../skills/skills.module.js';

/** Serving stored packages back (GET …/files, …/files/*, …/package); publishing is versions/. */
@Module({
  imports: [SkillsModule],
  controllers: [PackageFilesController],
  providers: [PackageContents],
  exports: [PackageContents],
})
export class PackagesModule {}
