import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { NestFactory } from '@nestjs/core';
import { ApiModule } from './api.module';
import { configureHttpApp } from './core/http/configure-http-app';
import { documentGenerationConfig } from './core/openapi/openapi-config';
import { buildOpenApiDocument, serializeOpenApiDocument } from './core/openapi/openapi-document';

/**
 * `npm run openapi`: writes openapi/openapi.json from the compiled app. No database or Redis is
 * contacted: the document only needs the module graph, so connections are never initialised.
 * An entry point beside main.ts, since it builds the whole API (core/ never imports the app).
 */
async function main(): Promise<void> {
  const app = await NestFactory.create(ApiModule.forRoot(documentGenerationConfig()), { logger: false, preview: true });
  configureHttpApp(app, documentGenerationConfig());
  const target = join(__dirname, '..', '..', 'openapi', 'openapi.json');
  mkdirSync(join(target, '..'), { recursive: true });
  writeFileSync(target, serializeOpenApiDocument(buildOpenApiDocument(app)));
  await app.close();
  process.stdout.write(`wrote ${target}\n`);
}

void main();
