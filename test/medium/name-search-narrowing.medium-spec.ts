import { INestApplicationContext } from '@nestjs/common';
import { DataSource } from 'typeorm';
import { AuthenticatedUser } from '../../src/core/auth/authenticated-user';
import { createValidationPipe } from '../../src/core/http/validation';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { CreateSampleDto } from '../../src/modules/samples/dto/sample-write.dto';
import { SampleNameStatistics } from '../../src/modules/samples/sample-name-statistics';
import { SampleSearchRepository } from '../../src/modules/samples/sample-search.repository';
import { SampleSearchService } from '../../src/modules/samples/sample-search.service';
import { SampleWriter } from '../../src/modules/samples/write/sample-writer';
import { createRegistrant } from '../support/auth';
import { createMediumContext } from '../support/medium';

/**
 * `q` and `name` ask the name's trigram index for a few rare trigrams of the term and check each
 * row for the whole term (name-trigrams.ts, issue 23 §6): the answer must stay "the name contains
 * the text", case ignored, whatever the term holds — words out of order, spaces, LIKE's wildcards,
 * characters outside ASCII.
 */
describe('text search narrowed to rare trigrams (q, name)', () => {
  let app: INestApplicationContext;
  let user: AuthenticatedUser;
  const names = [
    'Basalt core Troodos 2019-0001',
    'BASALT CORE TROODOS 2019-0002',
    'Hardcore Troodos 2019x',
    'Troodos core 2019 basalt',
    'core  troodos 2019 (two spaces)',
    'Gabbro core Troodos 2020-0003',
    '50% core_troodos sample',
    '50x corextroodos sample',
    'Río Tinto pyrite 7',
    'Rio Tinto pyrite 7',
  ];
  const terms = [
    'core troodos 2019',
    'troodos 2019',
    'ore troo',
    'core_troodos',
    '50% core',
    'río tinto',
    'tinto pyrite',
    'basalt',
    'core  troodos',
    'xyzzy plugh',
  ];

  beforeAll(async () => {
    app = await createMediumContext();
    const registrant = await createRegistrant(app);
    const acting = (await app.get(AccountsService).actingUser(registrant.userId)) as AuthenticatedUser;
    user = { ...acting, teams: [] };
    const validation = createValidationPipe();
    for (const name of names) {
      const dto = (await validation.transform(
        { registry_code: registrant.code, name, object_type: 'Core', latitude: 35, longitude: 33 },
        { type: 'body', metatype: CreateSampleDto },
      )) as CreateSampleDto;
      await app.get(SampleWriter).register(dto, user);
    }
    await app.get(SampleNameStatistics).refresh();
  });

  afterAll(async () => {
    await app.close();
  });

  /** The names of the caller's samples that `filter` finds. */
  async function found(filter: { q: string } | { name: string }): Promise<string[]> {
    const page = await app
      .get(SampleSearchService)
      .search({ ...filter, scope: 'personal' }, { page: 1, pageSize: 100, offset: 0 }, user);
    return page.data.map((sample) => sample.name).sort();
  }

  /** What "the name contains the text, case ignored" selects, by PostgreSQL alone. */
  async function containing(term: string): Promise<string[]> {
    const rows: { name: string }[] = await app
      .get(DataSource)
      .query('SELECT name FROM sample WHERE user_owner_id = $1 AND strpos(lower(name), lower($2)) > 0', [
        user.userId,
        term,
      ]);
    return rows.map((row) => row.name).sort();
  }

  it('narrows multi-word terms once the names have been sampled', () => {
    expect(app.get(SampleNameStatistics).narrowing('core troodos 2019')).toEqual(
      expect.arrayContaining([expect.any(String)]),
    );
  });

  it.each(terms)('q=%j finds exactly the names containing it', async (term) => {
    const expected = await containing(term);
    expect(await found({ q: term })).toEqual(expected);
  });

  it.each(terms)('name=%j finds exactly the names containing it', async (term) => {
    expect(await found({ name: term })).toEqual(await containing(term));
  });

  it("keeps 1,000-entry statistics of lower(name), which the planner's estimate of a common term needs", async () => {
    const [row] = await app.get(DataSource).query(
      `SELECT a.attstattarget AS target FROM pg_attribute a
        WHERE a.attrelid = 'idx_sample_name_trgm'::regclass AND a.attnum = 1`,
    );
    expect(row.target).toBe(1000);
  });

  it('estimates a public search by one text from the sampled names, without asking the planner', async () => {
    const repository = app.get(SampleSearchRepository);
    const planner = jest.spyOn(repository as unknown as { estimate: () => Promise<number> }, 'estimate');
    try {
      const search = app.get(SampleSearchService);
      const page = { page: 1, pageSize: 25, offset: 0 };
      await search.search({ q: 'core troodos 2019' }, page, undefined);
      await search.search({ name: 'core troodos 2019' }, page, undefined);
      expect(planner).not.toHaveBeenCalled();
      // Another filter beside the text: the planner weighs them together.
      await search.search({ q: 'core troodos 2019', country: 'CY' }, page, undefined);
      expect(planner).toHaveBeenCalledTimes(1);
    } finally {
      planner.mockRestore();
    }
  });

  it('finds the names a multi-word term is in, and none with the words apart or out of order', async () => {
    expect(await found({ q: 'core troodos 2019' })).toEqual([
      'BASALT CORE TROODOS 2019-0002',
      'Basalt core Troodos 2019-0001',
      'Hardcore Troodos 2019x',
    ]);
  });
});
