import { CreateSampleDto } from '../../samples';
import { RelatedResourceDto, RelatedResourceRefDto } from '../../samples/dto/sample-write.dto';
import { InlineRowChecks, NewRowCheck, NewRowChecks, PooledRowChecks } from './new-row-checks';
import { RowValidationPool } from './row-validation-pool';

/**
 * A large batch checks its rows on threads: each row must come back in file order with the DTO
 * (its data, and the classes the writer tells related resource ids from links by) or the error the
 * inline check gives.
 */
const BODIES: Record<string, unknown>[] = [
  { name: 'A-1', object_type: 'Core', registry_code: 'IEABC', latitude: 10.5, longitude: -20 },
  {
    name: '  padded  ',
    object_type: 'Core',
    other_names: ['x', 'y'],
    collectors: [{ individual: { label: 'Marie Tharp' }, description: 'chief' }],
    platform: { label: 'R/V Atlantis', platform_type: 'Ship' },
    current_archive: { label: 'Lamont' },
    related_resources: [{ uri: 'https://doi.org/10.1/x', description: 'paper' }, 12, { id: '13' }],
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
  { name: 'E', object_type: 'Core', other_names: ['one', 'two'], elevation_unit: 'furlongs' },
];

async function checkAll(checks: NewRowChecks, count: number): Promise<NewRowCheck[]> {
  const results: NewRowCheck[] = [];
  for (let i = 0; i < count; i++) {
    results.push(...(await checks.add(i + 2, structuredClone(BODIES[i % BODIES.length]))));
  }
  results.push(...(await checks.drain()));
  return results;
}

describe('new row checks', () => {
  const pool = new RowValidationPool(2);
  afterAll(() => pool.close());

  it('answers on threads, in file order, exactly as inline', async () => {
    // Enough rows for several messages per thread and a partial last one.
    const count = 1234;
    const inline = await checkAll(new InlineRowChecks(), count);
    const pooled = await checkAll(new PooledRowChecks(pool), count);
    expect(pooled.map((check) => check.rowNumber)).toEqual(Array.from({ length: count }, (_, i) => i + 2));
    // The same data, own properties included (a thread's answer is a structured clone of its DTO)…
    expect(pooled).toEqual(inline);
    expect(JSON.stringify(pooled)).toBe(JSON.stringify(inline));
    // …and the classes the writer reads: the DTO's, and its related resources' (ids told from links by class).
    const classesOf = (check: NewRowCheck) =>
      'dto' in check
        ? [check.dto.constructor, ...(check.dto.related_resources ?? []).map((item) => item.constructor)]
        : [];
    expect(pooled.map(classesOf)).toEqual(inline.map(classesOf));
    expect(classesOf(inline[1])).toEqual([
      CreateSampleDto,
      RelatedResourceDto,
      RelatedResourceRefDto,
      RelatedResourceRefDto,
    ]);
    expect(pooled.filter((check) => 'error' in check)).toHaveLength(inline.filter((check) => 'error' in check).length);
  }, 60_000);

  it('drains to nothing when every row was returned', async () => {
    const checks = new PooledRowChecks(pool);
    expect(await checks.drain()).toEqual([]);
  });
});
