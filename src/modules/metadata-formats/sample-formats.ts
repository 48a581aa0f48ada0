import { HttpStatus } from '@nestjs/common';
import { ApiError } from '../../core/http/api-error';
import { SampleDto } from '../samples';
import { toCsv } from './csv.serializer';
import { toDataCiteXml } from './datacite.serializer';
import { MetadataFormatOptions } from './metadata-options';
import { JsonLdObject, toSchemaOrgJsonLd } from './schema-org.serializer';

/** The representations of one sample, by `?format=` name; the first is the default. */
export const SAMPLE_MEDIA_TYPES = {
  json: 'application/json',
  jsonld: 'application/ld+json',
  datacite: 'application/vnd.datacite.datacite+xml',
  csv: 'text/csv',
} as const;

export type SampleFormat = keyof typeof SAMPLE_MEDIA_TYPES;
export const SAMPLE_FORMATS = Object.keys(SAMPLE_MEDIA_TYPES) as SampleFormat[];
const MEDIA_TYPES: string[] = Object.values(SAMPLE_MEDIA_TYPES);

/**
 * Chooses the representation of a sample: `?format=` when given (it wins over Accept, so links and
 * browsers can ask for one), otherwise the Accept header. `accepts` is Express's `req.accepts`
 * (q-values and wildcards; no Accept or `*\/*` gives the first type, JSON).
 * An unknown `format` is a 400 naming the parameter; an Accept header none of the types satisfies
 * is a 406 listing them.
 */
export function negotiateSampleFormat(format: unknown, accepts: (types: string[]) => string | false): SampleFormat {
  if (format !== undefined) {
    if (typeof format === 'string' && (SAMPLE_FORMATS as string[]).includes(format.toLowerCase())) {
      return format.toLowerCase() as SampleFormat;
    }
    throw ApiError.invalidField('format', `must be one of ${SAMPLE_FORMATS.join(', ')}`);
  }
  const chosen = accepts(MEDIA_TYPES);
  const match = SAMPLE_FORMATS.find((name) => SAMPLE_MEDIA_TYPES[name] === chosen);
  if (!match) throw new ApiError(HttpStatus.NOT_ACCEPTABLE, NOT_ACCEPTABLE_BODY.message, NOT_ACCEPTABLE_BODY.errors);
  return match;
}

/** The 406 answer: the contract's error body, listing what is available. */
export const NOT_ACCEPTABLE_BODY = {
  message: `None of the requested media types is available; this resource is available as ${MEDIA_TYPES.join(', ')}.`,
  errors: { accept: [`must allow one of ${MEDIA_TYPES.join(', ')}`] },
};

export interface RenderedSample {
  /** Content-Type header, with charset. */
  contentType: string;
  /** An object to send as JSON, or the finished text. */
  body: { data: SampleDto } | JsonLdObject | string;
  /** Suggested download name (`Content-Disposition`), for formats a browser saves rather than shows. */
  filename?: string;
}

/** One sample in the chosen representation. */
export function renderSample(sample: SampleDto, format: SampleFormat, options: MetadataFormatOptions): RenderedSample {
  const contentType = `${SAMPLE_MEDIA_TYPES[format]}; charset=utf-8`;
  switch (format) {
    case 'json':
      return { contentType, body: { data: sample } };
    case 'jsonld':
      return { contentType, body: toSchemaOrgJsonLd(sample, options) };
    case 'datacite':
      return { contentType, body: toDataCiteXml(sample, options) };
    case 'csv':
      return {
        contentType: `${contentType}; header=present`,
        body: toCsv([sample]),
        filename: `${sample.igsn.split('/').pop() ?? 'sample'}.csv`,
      };
  }
}
