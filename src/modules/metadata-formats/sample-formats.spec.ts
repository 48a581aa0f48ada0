import { ApiError } from '../../core/http/api-error';
import { fullSampleDto } from './sample-dto.examples';
import { SAMPLE_MEDIA_TYPES, negotiateSampleFormat, renderSample } from './sample-formats';

/** Stands in for Express's req.accepts: the first offered type the client listed, in the client's order. */
const acceptsOnly =
  (...listed: string[]) =>
  (offered: string[]): string | false =>
    listed.find((type) => offered.includes(type)) ?? false;

function failure(run: () => unknown): { status: number; body: unknown } {
  try {
    run();
  } catch (error) {
    if (error instanceof ApiError) return { status: error.getStatus(), body: error.getResponse() };
    throw error;
  }
  throw new Error('expected an ApiError');
}

describe('negotiateSampleFormat', () => {
  it('offers JSON first, so no Accept or */* gets JSON', () => {
    expect(negotiateSampleFormat(undefined, (offered) => offered[0])).toBe('json');
  });

  it.each([
    ['application/ld+json', 'jsonld'],
    ['application/vnd.datacite.datacite+xml', 'datacite'],
    ['text/csv', 'csv'],
    ['application/json', 'json'],
  ])('maps Accept %s to %s', (type, format) => {
    expect(negotiateSampleFormat(undefined, acceptsOnly(type))).toBe(format);
  });

  it('lets ?format win over Accept, in any letter case', () => {
    expect(negotiateSampleFormat('DataCite', acceptsOnly('application/json'))).toBe('datacite');
    expect(negotiateSampleFormat('csv', acceptsOnly('image/png'))).toBe('csv');
  });

  it('refuses an unknown or repeated format with 400 naming the parameter', () => {
    for (const format of ['pdf', '', ['csv', 'json']]) {
      expect(failure(() => negotiateSampleFormat(format, acceptsOnly('application/json')))).toEqual({
        status: 400,
        body: {
          message: 'Invalid format: must be one of json, jsonld, datacite, csv.',
          errors: { format: ['must be one of json, jsonld, datacite, csv'] },
        },
      });
    }
  });

  it('answers 406 listing the available media types when Accept allows none', () => {
    const available = Object.values(SAMPLE_MEDIA_TYPES).join(', ');
    expect(failure(() => negotiateSampleFormat(undefined, acceptsOnly('image/png')))).toEqual({
      status: 406,
      body: {
        message: `None of the requested media types is available; this resource is available as ${available}.`,
        errors: { accept: [`must allow one of ${available}`] },
      },
    });
  });
});

describe('renderSample', () => {
  const options = { publisher: 'Test Registry' };

  it('labels each representation with its media type and charset', () => {
    const sample = fullSampleDto();
    expect(renderSample(sample, 'json', options)).toEqual({
      contentType: 'application/json; charset=utf-8',
      body: { data: sample },
    });
    expect(renderSample(sample, 'jsonld', options)).toMatchObject({
      contentType: 'application/ld+json; charset=utf-8',
      body: { '@type': 'CreativeWork', name: sample.name },
    });
    const datacite = renderSample(sample, 'datacite', options);
    expect(datacite.contentType).toBe('application/vnd.datacite.datacite+xml; charset=utf-8');
    expect(datacite.body).toMatch(/^<\?xml version="1.0" encoding="UTF-8"\?>\n<resource /);
    const csv = renderSample(sample, 'csv', options);
    expect(csv).toMatchObject({ contentType: 'text/csv; charset=utf-8; header=present', filename: 'IEABC0001.csv' });
    expect(csv.body).toMatch(/^IGSN,Sample Name,/);
  });
});
