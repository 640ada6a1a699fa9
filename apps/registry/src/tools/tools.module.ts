import { Module } from '@nestjs/common';
import { ToolDirectory } from './tool-directory.js';
import { ToolsController } from './tools.controller.js';

@Module({ controllers: [ToolsController], providers: [ToolDirectory], exports: [ToolDirectory] })
export class ToolsModule {}
