import { INestApplicationContext } from '@nestjs/common';
import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import { Client } from 'pg';
import { AuthenticatedUser } from '../../src/core/auth/authenticated-user';
import { createValidationPipe } from '../../src/core/http/validation';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { CreateSampleDto } from '../../src/modules/samples/dto/sample-write.dto';
import { SampleDto } from '../../src/modules/samples/dto/sample.dto';
import { SampleWriter } from '../../src/modules/samples/write/sample-writer';
import { createRegistrant, uniqueOrcid } from '../support/auth';
import { createMediumContext } from '../support/medium';

/**
 * The figure reached, transaction control included (BEGIN, COMMIT): it may only go down. It was 24
 * before object types, terms, countries and deprecated material types were kept in memory and the
 * sample went in with its collectors in one statement without a savepoint. What is left: the
 * caller's teams, the registry code (2), the archive (2) and the collector by ORCID iD (5), minting
 * (2), the insert, and the answer's read. The target is 4.
 */
const STATEMENT_BUDGET = 16;

/**
 * What one registration costs the database (issue 23 §3): the statements SampleWriter.register sends
 * when every reference it names (object type, vocabulary terms, country, a collector by ORCID iD, an
 * archive) is already stored. Only statements sent from the registration's own asynchronous context
 * are counted, so nothing else the process does at the same moment changes the figure.
 */
describe('statements per registration', () => {
  let app: INestApplicationContext;
  let user: AuthenticatedUser;
  let code: string;
  const orcid = uniqueOrcid();
  const validation = createValidationPipe();
  const measuring = new AsyncLocalStorage<string[]>();
  const query = Client.prototype.query;

  beforeAll(async () => {
    app = await createMediumContext();
    const registrant = await createRegistrant(app);
    code = registrant.code;
    user = (await app.get(AccountsService).actingUser(registrant.userId)) as AuthenticatedUser;
    // Every statement goes through a pg Client; the ones sent on behalf of a measured call are noted.
    (Client.prototype as { query: unknown }).query = function (this: Client, ...args: unknown[]): unknown {
      const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text;
      measuring.getStore()?.push(String(text).replace(/\s+/g, ' ').slice(0, 120));
      return (query as (...values: unknown[]) => unknown).apply(this, args);
    };
  });

  afterAll(async () => {
    Client.prototype.query = query;
    await app.close();
  });

  async function body(): Promise<CreateSampleDto> {
    return (await validation.transform(
      {
        registry_code: code,
        name: `sample-${randomUUID().slice(0, 8)}`,
        object_type: 'Core',
        latitude: 53.3,
        longitude: -6.2,
        country: 'ie',
        general_material_type: 'rock',
        material_types: ['Igneous>Plutonic'],
        collectors: [{ individual: { label: 'Marie Tharp', individual_uri: orcid } }],
        current_archive: { label: 'Statement Count Repository' },
      },
      { type: 'body', metatype: CreateSampleDto },
    )) as CreateSampleDto;
  }

  /** Registers one sample; returns what it answered and the statements it sent. */
  async function registerMeasured(): Promise<{ sample: SampleDto; statements: string[] }> {
    const dto = await body();
    const statements: string[] = [];
    const sample = await measuring.run(statements, () => app.get(SampleWriter).register(dto, user));
    return { sample, statements };
  }

  it('sends no more statements than the budget when every named reference is known', async () => {
    const first = await registerMeasured(); // stores the collector and the archive
    const { sample, statements } = await registerMeasured();
    // Beyond the budget, the failure lists the statements past it.
    expect(statements.slice(STATEMENT_BUDGET)).toEqual([]);
    expect(sample).toMatchObject({
      object_type: 'Core',
      country: 'IE',
      general_material_type: 'Rock',
      material_types: ['Igneous>Plutonic'],
      current_archive: { id: first.sample.current_archive?.id },
      collectors: [{ individual: { label: 'Marie Tharp', individual_uri: orcid } }],
    });
    expect(sample.collectors[0].id).toBe(first.sample.collectors[0].id);
  });
});
