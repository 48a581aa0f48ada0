import { createValidationPipe, validateBuiltBody } from '../../core/http/validation';
import { CreateSampleDto, UpdateSampleDto } from '../samples';

/**
 * Batch rows are checked with validateBuiltBody, not the pipe of POST /api/samples/: both must
 * give the same DTO for a good body and the same error body for a bad one.
 */
const pipe = createValidationPipe();

type Outcome = { dto: unknown } | { status: number; body: unknown };

async function outcome(check: () => Promise<unknown>): Promise<Outcome> {
  try {
    const dto = await check();
    return { dto: { type: (dto as object).constructor.name, ...(dto as object) } };
  } catch (error) {
    const http = error as { getStatus(): number; getResponse(): unknown };
    return { status: http.getStatus(), body: http.getResponse() };
  }
}

const BODIES: Record<string, unknown>[] = [
  { name: 'A-1', object_type: 'Core', registry_code: 'IEABC', latitude: 10.5, longitude: -20 },
  {
    name: '  padded  ',
    object_type: 'Core',
    other_names: ['x', 'y'],
    collectors: [{ individual: { label: 'Marie Tharp' }, description: 'chief' }],
    platform: { label: 'R/V Atlantis', platform_type: 'Ship' },
    current_archive: { label: 'Lamont' },
    related_resources: [{ uri: 'https://doi.org/10.1/x', description: 'paper' }],
    sampling_start_date: '2024-03-15',
    elevation: 12,
    elevation_unit: 'meters',
    id: 7, // read-only: ignored
  },
  { name: '', object_type: 'Core' },
  { object_type: 'Core', latitude: 'north', longitude: 200 },
  { name: 'B', object_type: 'Core', colour: 'red', sampling_start_date: '15/03/2024' },
  { name: 'C', object_type: 'Core', collectors: [{ individual: { label: 'x'.repeat(300) } }, 'not an object'] },
  { name: 'D', object_type: 'Core', related_resources: [{ uri: 'not a url' }], platform: { bogus: 1 } },
  { name: 'E', object_type: 'Core', other_names: 'one; two', elevation_unit: 'furlongs' },
];

describe('validateBuiltBody (batch rows) against the ValidationPipe', () => {
  it.each(BODIES.map((body, index) => [index, body]))('body %i: same DTO or same error', async (_index, body) => {
    for (const metatype of [CreateSampleDto, UpdateSampleDto]) {
      const viaPipe = await outcome(() => pipe.transform(structuredClone(body), { type: 'body', metatype }));
      const direct = await outcome(() => validateBuiltBody(metatype, structuredClone(body)));
      expect(direct).toEqual(viaPipe);
    }
  });

  it('refuses what the pipe refuses', async () => {
    const refused = await outcome(() =>
      validateBuiltBody(CreateSampleDto, { name: 'x', object_type: 'Core', colour: 1 }),
    );
    expect(refused).toEqual({
      status: 400,
      body: { message: 'Validation failed: colour.', errors: { colour: ['This field is not allowed.'] } },
    });
  });
});
