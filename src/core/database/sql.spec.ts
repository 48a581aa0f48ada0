import { and, around, bind, condition, empty, identifier, join, or, raw, sql } from './sql';

describe('sql', () => {
  it('turns interpolated values into numbered parameters', () => {
    expect(sql`SELECT 1 FROM sample s WHERE s.id = ${7} AND s.igsn = ${'IEABC0001'}`.toQuery()).toEqual({
      text: 'SELECT 1 FROM sample s WHERE s.id = $1 AND s.igsn = $2',
      values: [7, 'IEABC0001'],
    });
  });

  it('splices nested fragments and numbers their parameters in order of appearance', () => {
    const visible = sql`(s.publish_date <= ${'now'} OR s.user_owner_id = ${3})`;
    const inner = sql`s.batch_id = ${12} AND ${visible}`;
    const outer = sql`SELECT s.id FROM sample s WHERE s.id > ${100} AND ${inner} LIMIT ${10}`;
    expect(outer.toQuery()).toEqual({
      text: 'SELECT s.id FROM sample s WHERE s.id > $1 AND s.batch_id = $2 AND (s.publish_date <= $3 OR s.user_owner_id = $4) LIMIT $5',
      values: [100, 12, 'now', 3, 10],
    });
    // A fragment is a value: embedding it does not change it.
    expect(inner.toQuery()).toEqual({
      text: 's.batch_id = $1 AND (s.publish_date <= $2 OR s.user_owner_id = $3)',
      values: [12, 'now', 3],
    });
  });

  it('reuses the numbers of a fragment embedded twice', () => {
    const visible = sql`s.owner = ${5}`;
    expect(sql`${visible} OR ${visible} OR s.x = ${6}`.toQuery()).toEqual({
      text: 's.owner = $1 OR s.owner = $1 OR s.x = $2',
      values: [5, 6],
    });
  });

  it('keeps one number for a bound value named twice', () => {
    const me = bind(7);
    const where = sql`(s.user_owner_id = ${me} OR (s.team_owner_id = ANY(${[2]}::int[]) AND s.user_owner_id IS DISTINCT FROM ${me}))`;
    expect(sql`s.x = ${1} AND ${where}`.toQuery()).toEqual({
      text: 's.x = $1 AND (s.user_owner_id = $2 OR (s.team_owner_id = ANY($3::int[]) AND s.user_owner_id IS DISTINCT FROM $2))',
      values: [1, 7, [2]],
    });
  });

  it('passes arrays, dates and nulls as single parameters', () => {
    const at = new Date('2025-01-01T00:00:00Z');
    expect(sql`f(${[1, 2]}, ${at}, ${null})`.toQuery()).toEqual({ text: 'f($1, $2, $3)', values: [[1, 2], at, null] });
  });

  it('joins parts with a separator, leaving empty parts out', () => {
    expect(join([sql`a = ${1}`, empty, sql`b = ${2}`], ', ').toQuery()).toEqual({
      text: 'a = $1, b = $2',
      values: [1, 2],
    });
    expect(join([], ', ').isEmpty).toBe(true);
    expect(join([empty, empty], ', ').isEmpty).toBe(true);
  });

  it('combines conditions with and/or', () => {
    const a = sql`a = ${1}`;
    const b = sql`b = ${2}`;
    expect(and(a, b).toQuery()).toEqual({ text: 'a = $1 AND b = $2', values: [1, 2] });
    expect(or(a, b).toQuery()).toEqual({ text: '(a = $1 OR b = $2)', values: [1, 2] });
    expect(and(raw('x'), or(a, b)).toQuery().text).toBe('x AND (a = $1 OR b = $2)');
    expect(or(a).toQuery().text).toBe('a = $1');
    expect(or(empty, a, empty).toQuery().text).toBe('a = $1');
  });

  it('treats empty conditions as absent, and none at all as true in a WHERE clause', () => {
    expect(and().isEmpty).toBe(true);
    expect(and(empty, empty).isEmpty).toBe(true);
    expect(or().isEmpty).toBe(true);
    expect(sql``.isEmpty).toBe(true);
    expect(sql`${empty}`.isEmpty).toBe(true);
    expect(raw('true').isEmpty).toBe(false);
    expect(sql`WHERE ${condition(and())}`.toQuery()).toEqual({ text: 'WHERE true', values: [] });
    expect(sql`WHERE ${condition(and(sql`a = ${1}`))}`.toQuery()).toEqual({ text: 'WHERE a = $1', values: [1] });
  });

  it('splices raw text and identifiers without parameters', () => {
    expect(sql`SELECT ${identifier('s.igsn')} FROM sample s LIMIT ${raw('10001')}`.toQuery()).toEqual({
      text: 'SELECT s.igsn FROM sample s LIMIT 10001',
      values: [],
    });
    expect(() => identifier('s; DROP TABLE sample')).toThrow('Not a plain SQL identifier');
    expect(() => identifier('"quoted"')).toThrow();
  });

  it('splices an operand into text a function of the code builds around it', () => {
    const key = (operand: string) => `COALESCE(upper(${operand}), lower(${operand}))`;
    expect(sql`x = ${around(key, sql`${bind('a')}::text`)} AND y = ${2}`.toQuery()).toEqual({
      text: 'x = COALESCE(upper($1::text), lower($1::text)) AND y = $2',
      values: ['a', 2],
    });
    expect(around(key, raw('i.uri')).toQuery().text).toBe('COALESCE(upper(i.uri), lower(i.uri))');
  });

  it('prints the same text for the same shape whatever the values', () => {
    const statement = (id: number, teams: number[]) =>
      sql`SELECT 1 FROM sample s WHERE s.id = ${id} AND s.team_owner_id = ANY(${teams}::int[])`.toQuery().text;
    expect(statement(1, [])).toBe(statement(99, [1, 2, 3]));
  });
});
