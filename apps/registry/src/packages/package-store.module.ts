import { Module } from '@nestjs/common';
import type pg from 'pg';
import { PackageStore } from '#package-store/index.js';
import { DATABASE_POOL } from '../config/database-pool.js';

/** The content-addressed package store of the registry (libs/package-store), on the process's pool. */
@Module({
  providers: [{ provide: PackageStore, useFactory: (pool: pg.Pool) => new PackageStore(pool), inject: [DATABASE_POOL] }],
  exports: [PackageStore],
})
export class PackageStoreModule {}
