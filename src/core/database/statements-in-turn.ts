import type { EntityManager, QueryRunner } from 'typeorm';

/**
 * Lets steps that run at the same time share one transaction's connection (a batch prepares its
 * next rows while the previous chunk inserts): every statement sent through `manager` from now on
 * waits for the answer to the one asked before it, so they run one at a time in the order they
 * were asked. pg would queue them itself, but deprecates that (pg 9 refuses it). The steps must not
 * open savepoints: another step's statement could land inside one and be rolled back with it.
 */
export function statementsInTurn(manager: EntityManager): void {
  const runner = manager.queryRunner;
  if (!runner) throw new Error('statementsInTurn needs a manager bound to one connection.');
  const send: QueryRunner['query'] = runner.query.bind(runner);
  let previous: Promise<unknown> = Promise.resolve();
  runner.query = ((...args: Parameters<QueryRunner['query']>) => {
    const turn = previous.then(() => send(...args));
    previous = turn.catch(() => undefined);
    return turn;
  }) as QueryRunner['query'];
}
