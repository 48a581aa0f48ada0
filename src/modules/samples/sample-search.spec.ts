import { ApiError } from '../../core/http/api-error';
import {
  orcidOf,
  parseBoundingBox,
  parseDateBound,
  parseDateRange,
  refuseUnknownSearchParameters,
} from './sample-search';

/** The contract error body a call throws. */
function errorOf(call: () => unknown): { message: string; errors: Record<string, string[]> } {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error.getResponse() as { message: string; errors: Record<string, string[]> };
    throw error;
  }
  throw new Error('no error thrown');
}

describe('sample search parameters', () => {
  it('names every unknown parameter, and knows the filters and the page', () => {
    expect(() =>
      refuseUnknownSearchParameters(['q', 'page', 'page_size', 'bbox', 'collector', 'created_to', 'parent']),
    ).not.toThrow();
    expect(errorOf(() => refuseUnknownSearchParameters(['q', 'Bbox', 'format']))).toEqual({
      message: 'Unknown query parameters: Bbox, format.',
      errors: { Bbox: ['is not a search parameter'], format: ['is not a search parameter'] },
    });
  });

  it('reads a bounding box, bounds included, and refuses impossible ones', () => {
    expect(parseBoundingBox(' -10.5, 51.4 ,-5.4,55.4')).toEqual({
      minLon: -10.5,
      minLat: 51.4,
      maxLon: -5.4,
      maxLat: 55.4,
    });
    expect(parseBoundingBox('170,-20,-170,20')).toEqual({ minLon: 170, minLat: -20, maxLon: -170, maxLat: 20 });
    expect(parseBoundingBox('-180,-90,180,90')).toEqual({ minLon: -180, minLat: -90, maxLon: 180, maxLat: 90 });
    for (const bad of ['', '1,2,3', '1,2,3,4,5', '1,,3,4', 'NaN,0,1,1', 'Infinity,0,1,1', '1e2,0,1,1', '0,1,1,0']) {
      expect(Object.keys(errorOf(() => parseBoundingBox(bad)).errors)).toEqual(['bbox']);
    }
    expect(errorOf(() => parseBoundingBox('0,-90.5,1,1')).errors.bbox).toEqual([
      'latitudes must be between -90 and 90',
    ]);
    expect(errorOf(() => parseBoundingBox('180.1,0,1,1')).errors.bbox).toEqual([
      'longitudes must be between -180 and 180',
    ]);
  });

  it('reads years, months, days (UTC) and zoned date-times as periods', () => {
    const iso = (period: { start: Date; end: Date }) => [period.start.toISOString(), period.end.toISOString()];
    expect(iso(parseDateBound('2024', 'x'))).toEqual(['2024-01-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']);
    expect(iso(parseDateBound('2024-12', 'x'))).toEqual(['2024-12-01T00:00:00.000Z', '2025-01-01T00:00:00.000Z']);
    expect(iso(parseDateBound('2024-02-29', 'x'))).toEqual(['2024-02-29T00:00:00.000Z', '2024-03-01T00:00:00.000Z']);
    expect(iso(parseDateBound('0050-01-01', 'x'))).toEqual(['0050-01-01T00:00:00.000Z', '0050-01-02T00:00:00.000Z']);
    expect(iso(parseDateBound('2024-06-01T10:30:00+02:00', 'x'))).toEqual([
      '2024-06-01T08:30:00.000Z',
      '2024-06-01T08:30:00.001Z',
    ]);
    for (const bad of ['2023-02-29', '2024-00', '2024-13-01', '24-01-01', '2024-6-1', '2024-06-01T10:30', 'now', '']) {
      expect(errorOf(() => parseDateBound(bad, 'created_from')).errors).toHaveProperty('created_from');
    }
  });

  it('turns a pair of bounds into a half-open range; one that ends before it starts is refused', () => {
    const names = { from: 'created_from', to: 'created_to' };
    expect(parseDateRange(undefined, ' ', names)).toBeUndefined();
    expect(parseDateRange('2024', '2024', names)).toEqual({
      from: new Date('2024-01-01T00:00:00Z'),
      to: new Date('2025-01-01T00:00:00Z'),
    });
    expect(parseDateRange(undefined, '2024-06-30', names)).toEqual({
      from: undefined,
      to: new Date('2024-07-01T00:00:00Z'),
    });
    expect(errorOf(() => parseDateRange('2024-07-01', '2024-06-30', names)).errors).toEqual({
      created_from: ['must not be after created_to'],
    });
  });

  it('recognises ORCID iDs, bare or as URLs, and nothing else', () => {
    expect(orcidOf('0000-0002-1825-009x')).toBe('0000-0002-1825-009X');
    expect(orcidOf(' https://orcid.org/0000-0002-1825-0097 ')).toBe('0000-0002-1825-0097');
    expect(orcidOf('Marie Tharp')).toBeUndefined();
    expect(orcidOf('0000-0002-1825')).toBeUndefined();
  });
});
