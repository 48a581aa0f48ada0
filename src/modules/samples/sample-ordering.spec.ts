import { ApiError } from '../../core/http/api-error';
import { DEFAULT_SAMPLE_ORDER, orderBySql, parseSampleOrdering } from './sample-ordering';
import { withoutSearchAliases } from './sample-search-aliases';

describe('parseSampleOrdering', () => {
  it('reads SESAR2 and our names, with - for descending', () => {
    expect(parseSampleOrdering(undefined)).toEqual(DEFAULT_SAMPLE_ORDER);
    expect(parseSampleOrdering(' ')).toEqual(DEFAULT_SAMPLE_ORDER);
    expect(parseSampleOrdering('-igsn')).toEqual({ column: 'igsn', descending: true });
    expect(parseSampleOrdering('registration_date')).toEqual({ column: 'created_at', descending: false });
    expect(parseSampleOrdering('-last_update_date')).toEqual({ column: 'updated_at', descending: true });
    expect(parseSampleOrdering('name')).toEqual({ column: 'name', descending: false });
  });

  it('refuses anything else with a 400 naming ordering', () => {
    for (const value of ['colour', '--igsn', 'constructor', 'igsn,name', '-']) {
      const error = (() => {
        try {
          parseSampleOrdering(value);
        } catch (caught) {
          return caught as ApiError;
        }
      })();
      expect(error?.getStatus()).toBe(400);
      expect(Object.keys((error?.getResponse() as { errors: object }).errors)).toEqual(['ordering']);
    }
  });

  it('breaks ties by id in the same direction, except on the unique IGSN', () => {
    expect(orderBySql({ column: 'name', descending: false }, 's')).toBe('s.name ASC, s.id ASC');
    expect(orderBySql({ column: 'created_at', descending: true }, '')).toBe('created_at DESC, id DESC');
    expect(orderBySql({ column: 'igsn', descending: true }, 's')).toBe('s.igsn DESC');
  });
});

describe('withoutSearchAliases', () => {
  it('turns search and sesar_code into q and registry_code and takes ordering out', () => {
    expect(withoutSearchAliases({ search: 'basalt', sesar_code: 'IEABC', ordering: '-igsn', page: '2' })).toEqual({
      query: { q: 'basalt', registry_code: 'IEABC', page: '2' },
      ordering: '-igsn',
    });
  });

  it('refuses an alias beside its own parameter with another value', () => {
    expect(() => withoutSearchAliases({ search: 'a', q: 'b' })).toThrow(ApiError);
    expect(withoutSearchAliases({ search: 'a', q: 'a' }).query).toEqual({ q: 'a' });
  });
});
