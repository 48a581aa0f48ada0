import { DataSource } from 'typeorm';
import { ReadRouting } from '../../core/database/read-replicas/read-routing.service';
import { SampleRepository } from './sample.repository';

/** The WHERE clause of a search, without a database: only the text and the parameters. */
describe('SampleRepository.searchCondition', () => {
  const repository = new SampleRepository({} as DataSource, {} as ReadRouting);

  it('puts the public condition first and numbers the filters after it', () => {
    const condition = repository.searchCondition(
      { public: { sql: '(public $1)', params: ['now'] } },
      { isDraft: false, name: '50%_Rock', igsn: 'ieabc', registryCodes: ['IEABC'] },
    );
    expect(condition.sql).toBe(
      "(public $1) AND s.metadata_store_status <> 'draft' AND lower(s.name) LIKE $2 AND s.igsn LIKE $3" +
        ' AND s.registry_code = ANY($4::text[])',
    );
    expect(condition.params).toEqual(['now', '%50\\%\\_rock%', '%IEABC%', ['IEABC']]);
  });

  it('matches q on the IGSN, the name and the other names, the last two sharing one value', () => {
    const condition = repository.searchCondition(
      { scope: 'personal', userId: 7, teamIds: [] },
      { q: { text: 'Basalt IEA', igsn: 'Basalt IEA' }, countryCodes: ['IE'], objectTypeIds: [3] },
    );
    expect(condition.sql.replace(/\s+/g, ' ')).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved' AND s.user_owner_id = $1" +
        ' AND (s.igsn LIKE $2 OR lower(s.name) LIKE $3' +
        ' OR sample_other_names_text(s.other_names) LIKE $3) AND s.object_type_id = ANY($4::int[])' +
        ' AND s.country = ANY($5::text[])',
    );
    expect(condition.params).toEqual([7, '%BASALT IEA%', '%basalt iea%', [3], ['IE']]);
  });

  it('shared: team samples the caller does not own; personal_and_shared: either', () => {
    const shared = repository.searchCondition({ scope: 'shared', userId: 7, teamIds: [2, 3] }, {});
    expect(shared.sql).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved'" +
        ' AND (s.team_owner_id = ANY($2::int[]) AND s.user_owner_id IS DISTINCT FROM $1)',
    );
    expect(shared.params).toEqual([7, [2, 3]]);
    const both = repository.searchCondition({ scope: 'personal_and_shared', userId: 7, teamIds: [2] }, {});
    expect(both.sql).toBe(
      "NOT s.is_deactivated AND s.metadata_store_status <> 'reserved' AND (s.user_owner_id = $1" +
        ' OR (s.team_owner_id = ANY($2::int[])' +
        ' AND s.user_owner_id IS DISTINCT FROM $1))',
    );
  });
});
