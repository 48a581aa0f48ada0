import { DataSource } from 'typeorm';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { sql } from '../../core/database/sql';
import { SampleSearchRepository } from './sample-search.repository';
import { SampleRepository } from './sample.repository';

/** The WHERE clause of a search, without a database: only the text and the parameters. */
describe('SampleSearchRepository.searchCondition', () => {
  const repository = new SampleSearchRepository({} as DataSource, {} as ReadRouting, {} as SampleRepository);

  it('puts the public condition first and numbers the filters after it', () => {
    const condition = repository
      .searchCondition(
        { public: sql`(public ${'now'})` },
        { isDraft: false, name: '50%_Rock', igsn: 'ieabc', registryCodes: ['IEABC'] },
      )
      .toQuery();
    expect(condition.text).toBe(
      "(public $1) AND s.metadata_store_status <> 'draft' AND lower(s.name) LIKE $2 AND s.igsn LIKE $3" +
        ' AND s.registry_code = ANY($4::text[])',
    );
    expect(condition.values).toEqual(['now', '%50\\%\\_rock%', '%IEABC%', ['IEABC']]);
  });

  it('matches q on the IGSN, the name and the other names, the last two sharing one value', () => {
    const condition = repository
      .searchCondition(
        { scope: 'personal', userId: 7, teamIds: [] },
        { q: { text: 'Basalt-IEA', igsn: 'Basalt-IEA' }, countryCodes: ['IE'], objectTypeIds: [3] },
      )
      .toQuery();
    expect(condition.text.replace(/\s+/g, ' ')).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved' AND s.user_owner_id = $1" +
        ' AND (s.igsn LIKE $2 OR lower(s.name) LIKE $3' +
        ' OR sample_other_names_text(s.other_names) LIKE $3) AND s.object_type_id = ANY($4::int[])' +
        ' AND s.country = ANY($5::text[])',
    );
    expect(condition.values).toEqual([7, '%BASALT-IEA%', '%basalt-iea%', [3], ['IE']]);
  });

  it('leaves the IGSN out of a q of several words: no IGSN holds a space', () => {
    const condition = repository
      .searchCondition({ public: sql`(public)` }, { q: { text: 'core troodos 2019', igsn: 'core troodos 2019' } })
      .toQuery();
    expect(condition.text.replace(/\s+/g, ' ')).toBe(
      '(public) AND (lower(s.name) LIKE $1 OR sample_other_names_text(s.other_names) LIKE $1)',
    );
    expect(condition.values).toEqual(['%core troodos 2019%']);
  });

  it('asks the name index for the narrowing trigrams alone and checks the whole term on each row', () => {
    const narrowed = { text: 'Core Troodos 2019', igsn: 'Core Troodos 2019', narrowing: ['tro', 'cor'] };
    const condition = repository.searchCondition({ public: sql`(public)` }, { q: narrowed }).toQuery();
    expect(condition.text.replace(/\s+/g, ' ')).toBe(
      '(public) AND ((lower(s.name) LIKE $1 AND lower(s.name) LIKE $2 AND strpos(lower(s.name), $3) <> 0)' +
        ' OR sample_other_names_text(s.other_names) LIKE $4)',
    );
    expect(condition.values).toEqual(['%tro%', '%cor%', 'core troodos 2019', '%core troodos 2019%']);
    const byName = repository.searchCondition({ public: sql`(public)` }, { name: '50%', nameNarrowing: [] }).toQuery();
    expect(byName.values).toEqual(['%50\\%%']);
  });

  it('shared: team samples the caller does not own; personal_and_shared: either', () => {
    const shared = repository.searchCondition({ scope: 'shared', userId: 7, teamIds: [2, 3] }, {}).toQuery();
    expect(shared.text).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved'" +
        ' AND (s.team_owner_id = ANY($1::int[]) AND s.user_owner_id IS DISTINCT FROM $2)',
    );
    expect(shared.values).toEqual([[2, 3], 7]);
    const both = repository.searchCondition({ scope: 'personal_and_shared', userId: 7, teamIds: [2] }, {}).toQuery();
    expect(both.text).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved' AND (s.user_owner_id = $1" +
        ' OR (s.team_owner_id = ANY($2::int[])' +
        ' AND s.user_owner_id IS DISTINCT FROM $1))',
    );
    expect(both.values).toEqual([7, [2]]);
  });

  it('lists reserved samples only when a store status is asked for', () => {
    const reserved = repository
      .searchCondition({ scope: 'personal', userId: 7, teamIds: [] }, { storeStatus: 'reserved' })
      .toQuery();
    expect(reserved.text).toBe('NOT s.is_deactivated AND s.user_owner_id = $1 AND s.metadata_store_status = $2');
    expect(reserved.values).toEqual([7, 'reserved']);
  });

  it('prints the same text for the same filters whatever their values (prepared statements keyed on it)', () => {
    const text = (userId: number, codes: string[]) =>
      repository.searchCondition({ scope: 'personal', userId, teamIds: [] }, { registryCodes: codes }).toQuery().text;
    expect(text(1, ['A'])).toBe(text(2, ['B', 'C']));
  });

  it('has no condition for no filters, and matches nothing for a collector nobody has', () => {
    expect(repository.filterCondition({}).isEmpty).toBe(true);
    expect(repository.filterCondition({ collectorIds: [] }).toQuery()).toEqual({ text: 'false', values: [] });
    const box = repository.filterCondition({ bbox: { minLon: 179, minLat: -20, maxLon: -179, maxLat: 15 } }).toQuery();
    expect(box.text).toBe(
      's.latitude BETWEEN $1::float8 AND $2::float8 AND (s.longitude >= $3::float8 OR s.longitude <= $4::float8)',
    );
    expect(box.values).toEqual([-20, 15, 179, -179]);
  });
});
