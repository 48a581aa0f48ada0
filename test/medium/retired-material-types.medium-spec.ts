import { INestApplicationContext } from '@nestjs/common';
import { randomUUID } from 'node:crypto';
import { DataSource } from 'typeorm';
import { ApiError } from '../../src/core/http/api-error';
import { AccountsService } from '../../src/modules/accounts/accounts.service';
import { CreateSampleDto } from '../../src/modules/samples/dto/sample-write.dto';
import { SampleAccessPolicy, SampleCaller } from '../../src/modules/samples/sample-access.policy';
import { SampleReferences } from '../../src/modules/samples/sample-references';
import { SampleWriteContext } from '../../src/modules/samples/write/sample-write.context';
import { SampleWriter } from '../../src/modules/samples/write/sample-writer';
import { createRegistrant } from '../support/auth';
import { createMediumContext } from '../support/medium';

/**
 * Deprecated material types (`for_registration` false, issue 20 §3) on the real database, through
 * the write a batch row takes (SampleWriter.prepareNew in a batch's context, with its memoized references): the
 * JSON API's rule holds for batches, and legacy XML's exemption is the only one.
 */
describe('deprecated material types in sample writes', () => {
  let app: INestApplicationContext;
  let caller: SampleCaller;
  let code: string;

  beforeAll(async () => {
    app = await createMediumContext();
    const registrant = await createRegistrant(app);
    code = registrant.code;
    const user = await app.get(AccountsService).actingUser(registrant.userId);
    caller = (await app.get(SampleAccessPolicy).caller(user)) as SampleCaller;
  });

  afterAll(async () => {
    await app.close();
  });

  /** Prepares a batch row (nothing is stored: the transaction is rolled back). */
  async function prepareRow(extra: Partial<CreateSampleDto>, channel: 'batch' | 'xml' = 'batch'): Promise<unknown> {
    const dto = Object.assign(new CreateSampleDto(), {
      registry_code: code,
      name: `row-${randomUUID().slice(0, 8)}`,
      object_type: 'Core',
      ...extra,
    });
    const context: SampleWriteContext =
      channel === 'batch' ? { channel, references: app.get(SampleReferences).memoized() } : { channel };
    return app
      .get(DataSource)
      .transaction(async (manager) => {
        await app.get(SampleWriter).prepareNew(dto, caller, 'draft', manager, context);
        throw new Error('rollback');
      })
      .catch((error: unknown) => (error instanceof Error && error.message === 'rollback' ? undefined : error));
  }

  it('refuses a batch row naming a deprecated term, in either field, and names the list', async () => {
    const general = await prepareRow({ general_material_type: 'Liquid>organic' });
    expect(general).toBeInstanceOf(ApiError);
    const body = (general as ApiError).getResponse() as { errors: Record<string, string[]> };
    expect(Object.keys(body.errors)).toEqual(['general_material_type']);
    expect(body.errors.general_material_type[0]).toContain('GET /api/vocab/material-types/');

    const listed = await prepareRow({ material_types: ['Igneous>Plutonic', 'liquid>AQUEOUS'] });
    expect(Object.keys(((listed as ApiError).getResponse() as { errors: object }).errors)).toEqual(['material_types']);
  });

  it('accepts current terms, free classification labels and, for legacy XML, deprecated terms', async () => {
    expect(
      await prepareRow({ general_material_type: 'Granite', material_types: ['Igneous>Plutonic'] }),
    ).toBeUndefined();
    expect(await prepareRow({ general_material_type: 'Liquid>aqueous' }, 'xml')).toBeUndefined();
  });
});
