import { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { DataSource } from 'typeorm';
import { createMediumContext } from '../support/medium';

/** What every connection of the application's pool is opened with (data-source-options). */
describe('connection settings', () => {
  let app: INestApplicationContext;
  let dataSource: DataSource;

  beforeAll(async () => {
    app = await createMediumContext();
    dataSource = app.get<DataSource>(getDataSourceToken());
  });

  afterAll(() => app.close());

  it('turns JIT compilation off, in and outside transactions', async () => {
    const [outside] = await dataSource.query<{ jit: string }[]>('SHOW jit');
    expect(outside.jit).toBe('off');
    await dataSource.transaction(async (manager) => {
      const [inside] = await manager.query<{ jit: string }[]>('SHOW jit');
      expect(inside.jit).toBe('off');
    });
  });
});
