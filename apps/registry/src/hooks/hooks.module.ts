import { Module } from '@nestjs/common';
import { RegistryHooks } from './registry-hooks.js';

/** The registry's hooks (HOOKS_FILE's pre_flight phase, and its redactions of what the registry stores). */
@Module({
  providers: [RegistryHooks],
  exports: [RegistryHooks],
})
export class HooksModule {}
