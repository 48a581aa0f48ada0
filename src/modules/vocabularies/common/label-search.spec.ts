import type { DataSource, EntityManager } from 'typeorm';
import { escapeLike, inIdOrder, searchTerm } from './label-search';
import { LabelledRowRepository } from './labelled-row.repository';

const rows = new LabelledRowRepository({} as DataSource);

function recorder(rows: { id: number }[] = []) {
  const calls: { sql: string; params: unknown[] }[] = [];
  return {
    calls,
    manager: {
      query: (sql: string, params: unknown[]) => {
        calls.push({ sql, params });
        return Promise.resolve(rows);
      },
    } as unknown as Pick<EntityManager, 'query'>,
  };
}

describe('label search', () => {
  it('treats a blank search as no search', () => {
    expect(searchTerm(undefined)).toBeNull();
    expect(searchTerm('   ')).toBeNull();
    expect(searchTerm('  Côte ')).toBe('Côte');
  });

  it('escapes LIKE wildcards', () => {
    expect(escapeLike('50%_a\\b')).toBe('50\\%\\_a\\\\b');
  });

  it('matches folded labels with the expression the trigram indexes use, and passes input only as parameters', async () => {
    const { calls, manager } = recorder([{ id: 3 }, { id: 1 }]);
    const ids = await rows.searchIds(
      {
        table: 'country',
        columns: ['label'],
        codeColumns: ['iso3166code'],
        where: 't.active',
        search: " d'Ivoire%",
        limit: 5,
      },
      manager,
    );
    expect(ids).toEqual([3, 1]);
    const [{ sql, params }] = calls;
    expect(params).toEqual(["d'Ivoire\\%", "d'Ivoire%", 5]);
    expect(sql).toContain("lower(immutable_unaccent(t.label)) LIKE '%' || lower(immutable_unaccent($1)) || '%'");
    expect(sql).toContain('lower(t.iso3166code) = lower($2)');
    expect(sql).toContain('(t.active)');
    expect(sql).toMatch(
      /ORDER BY CASE[\s\S]*THEN 0[\s\S]*THEN 1[\s\S]*ELSE 2 END, lower\(immutable_unaccent\(t\.label\)\), t\.id LIMIT \$3$/,
    );
    expect(sql).not.toContain('Ivoire');
  });

  it('lists everything by label without a search', async () => {
    const { calls, manager } = recorder();
    await rows.searchIds({ table: 'object_type', columns: ['label'], orderBy: 'hierarchical_label' }, manager);
    expect(calls[0]).toEqual({
      sql: 'SELECT t.id FROM object_type t ORDER BY lower(immutable_unaccent(t.hierarchical_label)), t.id',
      params: [],
    });
  });

  it('restores the order of ids after an IN query, keeping repeats and dropping missing rows', () => {
    const rows = [{ id: 1 }, { id: 2 }, { id: 3 }];
    expect(inIdOrder(rows, [3, 1, 3, 9]).map((r) => r.id)).toEqual([3, 1, 3]);
  });
});
