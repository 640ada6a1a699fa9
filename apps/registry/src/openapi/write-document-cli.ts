import 'reflect-metadata';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, type NestFastifyApplication } from '@nestjs/platform-fastify';
import { loadConfig } from '../config/app-config.js';
import { RegistryModule } from '../registry.module.js';
import { createRegistryDocument } from './registry-document.js';

// Writes the OpenAPI document that /docs-json serves, without a database or a listening port: the
// console's build types its API client from it (apps/console/build.mjs). Nest's preview mode reads
// the modules and controllers' metadata without creating a provider, so nothing connects anywhere.
// Usage: node dist/apps/registry/src/openapi/write-document-cli.js <out.json>
const out = process.argv[2];
if (!out) {
  console.error('usage: write-document-cli.js <out.json>');
  process.exit(64); // EX_USAGE
}
// The document depends on no setting but BENCH_BASELINE_ROUTE (off, as in production); the rest only has to parse.
const config = loadConfig({ DATABASE_URL: 'postgresql://unused@127.0.0.1:1/unused', LOG_LEVEL: 'error' });
const app = await NestFactory.create<NestFastifyApplication>(RegistryModule.forRoot(config), new FastifyAdapter(), {
  preview: true,
  logger: false,
});
const document = createRegistryDocument(app);
await app.close();
mkdirSync(path.dirname(path.resolve(out)), { recursive: true });
writeFileSync(out, `${JSON.stringify(document, null, 2)}\n`);
