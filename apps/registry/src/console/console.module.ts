import { Module } from '@nestjs/common';
import { ConsoleAssets } from './console-assets.js';
import { ConsoleController } from './console.controller.js';
import { ConsoleResponder } from './console-response.js';

/** The browser console (apps/console) served as static files at /console. */
@Module({ controllers: [ConsoleController], providers: [ConsoleAssets, ConsoleResponder] })
export class ConsoleModule {}
