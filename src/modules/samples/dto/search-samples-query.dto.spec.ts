import { ApiError } from '../../../core/http/api-error';
import { SearchSamplesQueryDto } from './search-samples-query.dto';

/** The 400 a query gets: its message and field errors. */
function refusal(query: Record<string, unknown>): { message: string; errors: Record<string, string[]> } {
  try {
    SearchSamplesQueryDto.parse(query);
  } catch (error) {
    if (error instanceof ApiError) return { message: error.message, errors: error.fieldErrors };
    throw error;
  }
  throw new Error('the query was accepted');
}

describe('SearchSamplesQueryDto', () => {
  it('answers a bad value as the search always has: Invalid <field>: <problem>.', () => {
    expect(refusal({ scope: 'everyone' })).toEqual({
      message: 'Invalid scope: must be one of public, personal, shared, personal_and_shared.',
      errors: { scope: ['must be one of public, personal, shared, personal_and_shared'] },
    });
    expect(refusal({ is_draft: 'yes' }).errors).toEqual({ is_draft: ['must be true or false'] });
    expect(refusal({ name: 'x'.repeat(256) }).errors).toEqual({ name: ['must be at most 255 characters'] });
    expect(refusal({ collector: 'x'.repeat(256) }).errors).toEqual({ collector: ['must be at most 255 characters'] });
    expect(refusal({ country: 'IE,Ireland' }).errors).toEqual({
      country: ['"IRELAND" is not an ISO 3166-1 alpha-2 code'],
    });
    expect(refusal({ metadata_store_status: 'lost' }).errors).toEqual({
      metadata_store_status: ['must be one of reserved, draft, pending-review, published'],
    });
    expect(refusal({ bbox: '1,2,3' }).errors).toEqual({
      bbox: ['must be four decimal numbers minLon,minLat,maxLon,maxLat'],
    });
    expect(refusal({ created_to: '2024-02-30' }).errors.created_to).toHaveLength(1);
    expect(refusal({ sampling_date_from: '2025', sampling_date_to: '2024' }).errors).toEqual({
      sampling_date_from: ['must not be after sampling_date_to'],
    });
    expect(refusal({ object_type: Array.from({ length: 51 }, (_, i) => `t${i}`).join(',') }).errors).toEqual({
      object_type: ['must list at most 50 distinct values'],
    });
  });

  it('names the first problem in the order the search checks them', () => {
    expect(Object.keys(refusal({ bbox: 'x', is_draft: 'maybe', scope: 'nobody' }).errors)).toEqual(['scope']);
    expect(Object.keys(refusal({ created_from: 'x', q: 'y'.repeat(300) }).errors)).toEqual(['q']);
  });

  it('refuses a parameter sent twice', () => {
    expect(refusal({ q: ['a', 'b'] }).errors).toEqual({ q: ['give this parameter once'] });
  });

  it('leaves other parameters (the page) to their owner and parses the values once', () => {
    const dto = SearchSamplesQueryDto.parse({
      page: '2',
      q: ' basalt ',
      name: ' ',
      country: 'ie, gb,IE',
      registry_code: ' ieabc ',
      is_draft: 'false',
      bbox: ' -10,50,-5,55 ',
      sampling_date_from: '2020',
      sampling_date_to: '2020-06',
    });
    expect(dto).not.toHaveProperty('page');
    expect(dto.criteria()).toMatchObject({
      q: 'basalt',
      name: undefined,
      isDraft: false,
      countries: ['IE', 'GB'],
      registryCodes: ['IEABC'],
      objectTypes: [],
      bbox: { minLon: -10, minLat: 50, maxLon: -5, maxLat: 55 },
      sampling: { from: new Date('2020-01-01T00:00:00Z'), to: new Date('2020-07-01T00:00:00Z') },
      created: undefined,
    });
  });

  it('reads a stored search only when every member is a known parameter with a text value', () => {
    expect(SearchSamplesQueryDto.readStored({ q: 'a', scope: 'personal' })).toEqual({ q: 'a', scope: 'personal' });
    expect(SearchSamplesQueryDto.readStored({ colour: 'red' })).toBeUndefined();
    expect(SearchSamplesQueryDto.readStored({ is_draft: true })).toBeUndefined();
    expect(SearchSamplesQueryDto.readStored(null)).toBeUndefined();
    expect(SearchSamplesQueryDto.readStored(['q'])).toBeUndefined();
  });
});
