import { IsOptional } from 'class-validator';
import { ApiError } from '../../../core/http/api-error';
import { createValidationPipe } from '../../../core/http/validation';
import { CollectorInputDto, CollectorReferences } from './collector-input.dto';

class SampleWrite {
  @IsOptional()
  @CollectorReferences()
  collectors?: CollectorInputDto[];
}

async function validate(body: object): Promise<unknown> {
  try {
    return (await createValidationPipe().transform(body, { type: 'body', metatype: SampleWrite })) as SampleWrite;
  } catch (error) {
    if (error instanceof ApiError) return error.getResponse();
    throw error;
  }
}

describe('CollectorReferences', () => {
  it('accepts ids and inline collectors, turning ids into {id}', async () => {
    const result = (await validate({
      collectors: [12, { individual: { label: ' Marie Tharp ', id: 4, can_edit: true }, description: 'PI' }],
    })) as SampleWrite;
    expect(result.collectors?.every((c) => c instanceof CollectorInputDto)).toBe(true);
    expect(JSON.parse(JSON.stringify(result.collectors))).toEqual([
      { id: 12 },
      { individual: { label: 'Marie Tharp' }, description: 'PI' },
    ]);
  });

  it('reports errors by list index and nested field', async () => {
    expect(
      await validate({
        collectors: [
          1.5,
          { individual: { label: 'x'.repeat(201) } },
          { institution: { ror: 'r'.repeat(26) } },
          { x: 1 },
        ],
      }),
    ).toMatchObject({
      errors: {
        'collectors.0.id': [expect.any(String)],
        'collectors.1.individual.label': [expect.any(String)],
        'collectors.2.institution.ror': [expect.any(String)],
        'collectors.3.x': ['This field is not allowed.'],
      },
    });
  });

  it('refuses something that is not a list', async () => {
    expect(await validate({ collectors: 'Marie' })).toMatchObject({ errors: { collectors: expect.any(Array) } });
  });
});
