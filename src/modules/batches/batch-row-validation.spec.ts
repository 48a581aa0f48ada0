import { plainToInstance } from 'class-transformer';
import { ValidationPipe } from '@nestjs/common';
import { createValidationPipe, validateBuiltBody, validationFailed } from '../../core/http/validation';
import { passesValidation } from '../../core/http/validation-pass-check';
import { bothTransforms } from '../../../test/support/instance-shape';
import { CreateSampleDto, UpdateSampleDto } from '../samples';

/**
 * Batch rows are checked with validateBuiltBody, not the pipe of POST /api/samples/: both must
 * give the same DTO for a good body and the same error body for a bad one.
 */
/** The same pipe with class-transformer and class-validator as they come (no compiled walk, no pass check). */
const libraryPipe = new ValidationPipe({
  forbidUnknownValues: false,
  whitelist: true,
  forbidNonWhitelisted: true,
  validationError: { target: false, value: false },
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  exceptionFactory: validationFailed,
});
/** Built last: its transformer and class-validator (with kept rules) are those every pipe of the process uses. */
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
      const viaPipe = await outcome(() => libraryPipe.transform(structuredClone(body), { type: 'body', metatype }));
      const appPipe = await outcome(() => pipe.transform(structuredClone(body), { type: 'body', metatype }));
      const direct = await outcome(() => validateBuiltBody(metatype, structuredClone(body)));
      expect(direct).toEqual(viaPipe);
      expect(appPipe).toEqual(viaPipe);
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

/** A full row as a batch builds it, every kind of field filled in (the bench's columns and more). */
const FULL: Record<string, unknown> = {
  name: 'F-1',
  object_type: 'Core',
  registry_code: 'IEABC',
  external_sample_id: 'ext-1',
  other_names: ['field 1', 'lab 1'],
  general_material_type: 'Rock',
  sample_description: 'Synthetic sample',
  latitude: -59.5,
  longitude: 120.25,
  elevation: -500,
  elevation_unit: 'meters',
  depth_min: 1,
  depth_max: 2,
  depth_unit: 'meters',
  sampling_start_date: '2024-03-15',
  sampling_end_date: '2024-03-16T10:00:00Z',
  sampling_date_precision: 'day',
  country: 'France',
  locality: 'Locality 1',
  collectors: [{ individual: { label: 'Marie Tharp' }, description: 'chief' }, { individual: { label: 'Bruce' } }],
  platform: { label: 'R/V Atlantis', platform_type: 'Ship', description: 'a ship' },
  launch_platform: { label: 'Alvin', launch_type: 'HOV' },
  current_archive: { label: 'Lamont-Doherty Core Repository' },
  original_archive: { label: 'Lamont' },
  related_resources: [{ uri: 'https://doi.org/10.1/x', description: 'paper' }],
  numeric_age_min: 1.5,
  numeric_age_max: 2,
  parent_sample: 'IEABC0001',
};

/** Values a cell can turn into that break one rule or another. */
const ODD_VALUES: unknown[] = [
  null,
  '',
  ' ',
  0,
  -1000,
  1e9,
  Number.NaN,
  'text',
  'x'.repeat(5000),
  true,
  [],
  ['a', 3],
  [null],
  {},
  { label: '' },
  { label: 'x', bogus: 1 },
  [{ individual: {} }],
  [{ individual: { label: 'x' }, extra: 1 }],
  [{ uri: 'not a url' }],
  '2024-13-45',
  '15/03/2024',
];

/** FULL with one field (top level or nested) replaced by each odd value, and with each field left out. */
function mutations(): Record<string, unknown>[] {
  const bodies: Record<string, unknown>[] = [];
  for (const key of Object.keys(FULL)) {
    const { [key]: _left, ...without } = FULL;
    bodies.push(without);
    for (const value of ODD_VALUES) bodies.push({ ...FULL, [key]: value });
    const nested = FULL[key];
    const inner = Array.isArray(nested) ? (nested[0] as Record<string, unknown>) : nested;
    if (inner && typeof inner === 'object') {
      for (const innerKey of Object.keys(inner)) {
        for (const value of ODD_VALUES) {
          const changed = { ...inner, [innerKey]: value };
          bodies.push({ ...FULL, [key]: Array.isArray(nested) ? [changed, ...nested.slice(1)] : changed });
        }
      }
    }
  }
  return bodies;
}

describe('the compiled pass check (validateBuiltBody and the pipe skip class-validator on a passing body)', () => {
  it('accepts the rows a batch sends, so they take the short way', () => {
    for (const body of [FULL, BODIES[0], BODIES[1]]) {
      expect(passesValidation(plainToInstance(CreateSampleDto, structuredClone(body)))).toBe(true);
    }
  });

  it('accepts nothing class-validator refuses, and errors stay the pipe’s', async () => {
    const bodies = mutations();
    let refused = 0;
    for (const body of bodies) {
      for (const metatype of [CreateSampleDto, UpdateSampleDto]) {
        const viaPipe = await outcome(() => libraryPipe.transform(structuredClone(body), { type: 'body', metatype }));
        const appPipe = await outcome(() => pipe.transform(structuredClone(body), { type: 'body', metatype }));
        const direct = await outcome(() => validateBuiltBody(metatype, structuredClone(body)));
        expect({ body, metatype: metatype.name, direct, appPipe }).toEqual({
          body,
          metatype: metatype.name,
          direct: viaPipe,
          appPipe: viaPipe,
        });
        if ('status' in viaPipe) refused++;
      }
    }
    // The corpus exercises refusals broadly, not only passing rows.
    expect(refused).toBeGreaterThan(bodies.length);
  });
});

describe('the compiled transform (validateBuiltBody and the pipe build DTOs with it)', () => {
  it('builds the DTO class-transformer builds, for every body of the corpus', () => {
    const extra: Record<string, unknown>[] = [
      { ...FULL, collectors: [12, { id: 3 }, { individual: { label: ' x ' } }], related_resources: ['IEABC0001', 5] },
      { ...FULL, related_resources: [{ id: 2 }, { uri: 'https://example.org', id: 3 }, null, [1]] },
      { ...FULL, current_archive: { id: 4, label: 'x', parent_institution: { id: 9 } } },
      { ...FULL, latitude: ' 38.5 ', longitude: '1e2', elevation: 'high', sampling_start_date: new Date(0) },
      JSON.parse('{"name": "P", "__proto__": {"x": 1}, "toString": 1, "constructor": 2, "object_type": "Core"}'),
    ];
    for (const body of [...BODIES, FULL, ...extra, ...mutations()]) {
      for (const metatype of [CreateSampleDto, UpdateSampleDto]) {
        const { library, compiled } = bothTransforms(metatype, () => structuredClone(body));
        expect({ body, metatype: metatype.name, compiled }).toEqual({
          body,
          metatype: metatype.name,
          compiled: library,
        });
      }
    }
  });
});
