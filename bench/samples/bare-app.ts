import 'reflect-metadata';
import { Controller, Get, Module, NotFoundException, Param, Query } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { Pool } from 'pg';

/*
 * The limit the API is measured against (issue 23): NestJS over Express with one pg pool, serving
 * the API's own fetch and list statements — no auth, logging, validation, rate limit, metrics or
 * mapping. `npm run bench:samples` starts it beside the API and reports the API's figures as ratios
 * to it, measured in the same run on the same machine.
 *
 * BARE_STATEMENTS (JSON): `fetch` — the fetch-by-IGSN text ($1 = IGSN suffix); `list` — the ids of
 * one page of the public list per page number (text and values) and `details` — the samples by id,
 * the two statements the API's repository runs for a page.
 */
interface BareStatements {
  fetch: string;
  details: string;
  list: Record<string, { text: string; values: unknown[] }>;
}

const statements = JSON.parse(process.env.BARE_STATEMENTS ?? '{}') as BareStatements;
const pool = new Pool({
  connectionString: process.env.DATABASE_URL,
  max: Number(process.env.DATABASE_POOL_SIZE ?? 10),
  application_name: 'bench-bare',
});

@Controller()
class BareController {
  @Get('health')
  health(): string {
    return 'ok';
  }

  @Get('samples/:suffix')
  async fetch(@Param('suffix') suffix: string): Promise<{ data: unknown }> {
    const { rows } = await pool.query({ name: 'bare-fetch', text: statements.fetch, values: [suffix] });
    if (rows.length === 0) throw new NotFoundException();
    return { data: rows[0] };
  }

  @Get('samples')
  async list(@Query('page') page = '1'): Promise<{ data: unknown[] }> {
    const statement = statements.list[page];
    if (!statement) throw new NotFoundException();
    const ids = (await pool.query<{ id: string }>({ name: `bare-list-${page}`, ...statement })).rows.map(
      (row) => row.id,
    );
    const pageIds = ids.slice(0, 25);
    const { rows } = await pool.query<{ id: string }>({
      name: 'bare-details',
      text: statements.details,
      values: [pageIds],
    });
    const byId = new Map(rows.map((row) => [row.id, row]));
    return { data: pageIds.map((id) => byId.get(id)) };
  }
}

@Module({ controllers: [BareController] })
class BareModule {}

async function main(): Promise<void> {
  const app = await NestFactory.create(BareModule, { logger: ['error'] });
  app.enableShutdownHooks();
  await app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
}

void main();
