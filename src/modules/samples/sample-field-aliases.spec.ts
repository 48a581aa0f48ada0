import { CreateSampleDto } from './dto/sample-write.dto';
import { SAMPLE_FIELD_ALIASES, aliasesOfField, withCanonicalFieldNames } from './sample-field-aliases';
import { sampleFieldByKey } from './sample-fields';
import { batchFieldByHeader } from '../batches/batch-fields';
import { validateBuiltBody } from '../../core/http/validation';
import { ApiError } from '../../core/http/api-error';

describe('SESAR2 field aliases', () => {
  it('folds an alias into our field name', () => {
    expect(
      withCanonicalFieldNames({ latitude_end: 38.9, longitude_end: -120.1, material_name_verbatim: 'Basalt' }),
    ).toEqual({ end_latitude: 38.9, end_longitude: -120.1, field_name: 'Basalt' });
  });

  it('accepts an alias and our name sent with the same value', () => {
    expect(withCanonicalFieldNames({ latitude_end: 38.9, end_latitude: 38.9 })).toEqual({ end_latitude: 38.9 });
    expect(withCanonicalFieldNames({ latitude_end: null, end_latitude: null })).toEqual({ end_latitude: null });
  });

  it('refuses an alias and our name that disagree, naming the alias', () => {
    let error: unknown;
    try {
      withCanonicalFieldNames({ latitude_end: 38.9, end_latitude: 12 });
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).getStatus()).toBe(400);
    expect(Object.keys((error as ApiError).fieldErrors)).toEqual(['latitude_end']);
  });

  it('names an existing catalogue field for every alias, and batch headers accept the alias', () => {
    for (const [alias, field] of Object.entries(SAMPLE_FIELD_ALIASES)) {
      expect(sampleFieldByKey(field)?.aliases).toContain(alias);
      expect(batchFieldByHeader(alias)?.key).toBe(field);
    }
    expect(aliasesOfField('end_latitude')).toEqual(['latitude_end']);
  });

  it('validates aliases in a JSON body like our fields (decimal strings, ranges)', async () => {
    const base = { name: 'A', object_type: 'Core' };
    const dto = await validateBuiltBody(CreateSampleDto, { ...base, latitude_end: '38.5', longitude_end: ' -120 ' });
    expect(dto.latitude_end).toBe(38.5);
    expect(dto.longitude_end).toBe(-120);
    await expect(validateBuiltBody(CreateSampleDto, { ...base, latitude_end: '95' })).rejects.toMatchObject({
      fieldErrors: { latitude_end: expect.any(Array) },
    });
  });
});

describe('numeric fields of a sample write', () => {
  const base = { name: 'A', object_type: 'Core' };

  it('take a JSON number or a decimal string and keep numbers', async () => {
    const dto = await validateBuiltBody(CreateSampleDto, {
      ...base,
      latitude: '38.957178',
      longitude: -120.5,
      elevation: '1e3',
      depth_min: '0',
    });
    expect(dto).toMatchObject({ latitude: 38.957178, longitude: -120.5, elevation: 1000, depth_min: 0 });
  });

  it.each([['abc'], [''], ['NaN'], [true], [{}], [[1]]])('refuse %p naming the field', async (value) => {
    await expect(validateBuiltBody(CreateSampleDto, { ...base, latitude: value })).rejects.toMatchObject({
      fieldErrors: { latitude: expect.any(Array) },
    });
  });

  it('check ranges after converting', async () => {
    await expect(validateBuiltBody(CreateSampleDto, { ...base, latitude: '-90.5' })).rejects.toMatchObject({
      fieldErrors: { latitude: expect.any(Array) },
    });
  });
});

describe('related_resources items', () => {
  const base = { name: 'A', object_type: 'Core' };

  it('take inline links and ids of related resource objects, mixed', async () => {
    const dto = await validateBuiltBody(CreateSampleDto, {
      ...base,
      related_resources: [7, '8', { id: 9, label: 'fetched', uri: 'https://x.org' }, { uri: 'https://example.org/a' }],
    });
    expect(dto.related_resources?.map((item) => ('id' in item ? item.id : item.uri))).toEqual([
      7,
      8,
      9,
      'https://example.org/a',
    ]);
  });

  it('refuse an id that is no id, naming the item', async () => {
    await expect(validateBuiltBody(CreateSampleDto, { ...base, related_resources: ['seven'] })).rejects.toMatchObject({
      fieldErrors: { 'related_resources.0.id': expect.any(Array) },
    });
    await expect(
      validateBuiltBody(CreateSampleDto, { ...base, related_resources: [{ uri: 'not a url' }] }),
    ).rejects.toMatchObject({ fieldErrors: { 'related_resources.0.uri': expect.any(Array) } });
  });
});
