import { Module } from '@nestjs/common';
import { AdapterToolDirectory } from './adapter-tool-directory.js';
import { AdapterToolsController } from './adapter-tools.controller.js';

@Module({ controllers: [AdapterToolsController], providers: [AdapterToolDirectory], exports: [AdapterToolDirectory] })
export class AdapterToolsModule {}
