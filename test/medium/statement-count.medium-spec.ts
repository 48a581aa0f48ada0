import { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { pooledQuery } from '../../src/core/database/prepared-query';
import { Metrics } from '../../src/core/metrics/metrics';
import { createMediumContext } from '../support/medium';

/**
 * db_statements_total counts the statements the process sends through its pools: those of
 * TypeORM's query runners (in and outside transactions) and those sent on the pool directly.
 */
describe('db_statements_total', () => {
  let app: INestApplicationContext;
  let dataSource: DataSource;
  let metrics: Metrics;

  beforeAll(async () => {
    app = await createMediumContext();
    dataSource = app.get<DataSource>(getDataSourceToken());
    metrics = app.get(Metrics);
  });

  afterAll(() => app.close());

  async function primaryStatements(): Promise<number> {
    const metric = await metrics.registry.getSingleMetric('db_statements_total')?.get();
    return metric?.values.find((value) => value.labels.pool === 'primary')?.value ?? Number.NaN;
  }

  it('goes up by one for each statement sent on the primary', async () => {
    const before = await primaryStatements();
    await dataSource.query('SELECT 1');
    await dataSource.transaction(async (manager) => {
      await manager.query('SELECT 2');
      await manager.query('SELECT 3');
    }); // BEGIN, two statements, COMMIT
    await pooledQuery(dataSource, 'SELECT $1::int AS n', [4]);
    await pooledQuery(dataSource, 'SELECT $1::int AS n', [5], 'statement_count_test');
    expect((await primaryStatements()) - before).toBe(7);
  });
});
