import { INestApplicationContext } from '@nestjs/common';
import { getDataSourceToken } from '@nestjs/typeorm';
import { Client } from 'pg';
import { DataSource, EntityManager } from 'typeorm';
import { statementsInTurn } from '../../src/core/database/statements-in-turn';
import { createMediumContext } from '../support/medium';

/**
 * Steps sharing a transaction's connection (a batch prepares rows while a chunk inserts) send their
 * statements through statementsInTurn: the pg client never holds two at once (pg 8 deprecates its
 * own queue), each is answered in the order it was asked, and a failing one does not stop the next
 * from being sent (its transaction decides what that next one gets).
 */
describe('statementsInTurn', () => {
  let context: INestApplicationContext;
  let dataSource: DataSource;
  const original = Client.prototype.query;
  let outstanding = 0;
  let most = 0;

  beforeAll(async () => {
    context = await createMediumContext();
    dataSource = context.get<DataSource>(getDataSourceToken());
    // Counts the statements a client has been given and not answered (the counting client looks
    // Client.prototype.query up on each call).
    Client.prototype.query = function (this: Client, ...args: unknown[]) {
      const result = (original as (...values: unknown[]) => unknown).apply(this, args);
      if (result instanceof Promise) {
        most = Math.max(most, ++outstanding);
        void result.finally(() => outstanding--).catch(() => undefined);
      }
      return result;
    } as typeof Client.prototype.query;
  }, 60_000);

  afterAll(async () => {
    Client.prototype.query = original;
    await context?.close();
  });

  beforeEach(() => {
    most = 0;
  });

  /** Asks a slow statement and a quick one at once; the order their answers came in. */
  async function askTogether(manager: EntityManager): Promise<string[]> {
    const answered: string[] = [];
    const slow = manager.query(`SELECT pg_sleep(0.2), 'slow' AS name`).then(() => answered.push('slow'));
    const quick = manager.query(`SELECT 'quick' AS name`).then(() => answered.push('quick'));
    await Promise.all([slow, quick]);
    return answered;
  }

  it('sends one statement at a time, in the order they were asked', async () => {
    const answered = await dataSource.transaction(async (manager) => {
      statementsInTurn(manager);
      return askTogether(manager);
    });
    expect({ answered, most }).toEqual({ answered: ['slow', 'quick'], most: 1 });
  });

  it('(without it, the client is given both at once)', async () => {
    await dataSource.transaction((manager) => askTogether(manager));
    expect(most).toBe(2);
  });

  it('goes on after a failed statement: the transaction decides what the next one gets', async () => {
    const outcome = await dataSource
      .transaction(async (manager) => {
        statementsInTurn(manager);
        const failed = manager.query('SELECT 1/0').then(
          () => 'answered',
          (error: Error) => error.message,
        );
        const next = manager.query('SELECT 1 AS one').then(
          () => 'answered',
          (error: Error) => error.message,
        );
        return Promise.all([failed, next]);
      })
      .catch((error: Error) => ['rolled back', error.message]);
    expect(outcome).toEqual(['division by zero', expect.stringContaining('current transaction is aborted')]);
  });
});
