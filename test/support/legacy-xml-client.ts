import { INestApplication } from '@nestjs/common';
import request from 'supertest';
import { parseStringPromise } from 'xml2js';
import { readFixture } from '../fixtures/fixtures';

/** The old service's example documents and response documents (test/fixtures/legacy-xml). */
export const readLegacyExample = (file: string): string => readFixture('legacy-xml', 'examples', file);
export const readLegacyResponse = (file: string): string => readFixture('legacy-xml', 'responses', file);

export const LEGACY_ENDPOINTS = {
  upload: '/webservices/upload.php',
  register: '/api/samples/legacy-xml/',
  update: '/webservices/update.php',
} as const;

/** Every way CONTRACT §7 lets a client send the `content` field. */
export const LEGACY_BODY_FORMS = [
  'form-urlencoded',
  'raw-content',
  'raw-content-with-credentials',
  'multipart-field',
  'multipart-file',
  'json',
  'xml-content',
  'text-xml-content',
  'bare-xml',
] as const;
export type LegacyBodyForm = (typeof LEGACY_BODY_FORMS)[number];

/** Posts `xml` as the content field in the given body form. */
export function postLegacyXml(
  app: INestApplication,
  path: string,
  xml: string,
  options: { form?: LegacyBodyForm; headers?: Record<string, string> } = {},
): request.Test {
  const post = request(app.getHttpServer())
    .post(path)
    .set(options.headers ?? {});
  switch (options.form ?? 'form-urlencoded') {
    case 'form-urlencoded':
      return post.type('form').send({ content: xml });
    case 'raw-content':
      return post.set('Content-Type', 'application/x-www-form-urlencoded').send(`content=${xml}`);
    case 'raw-content-with-credentials':
      return post
        .set('Content-Type', 'application/x-www-form-urlencoded')
        .send(`username=someone&password=secret&content=${xml}`);
    case 'multipart-field':
      return post.field('content', xml);
    case 'multipart-file':
      return post.attach('content', Buffer.from(xml, 'utf8'), { filename: 'samples.xml', contentType: 'text/xml' });
    case 'json':
      return post.send({ content: xml });
    case 'xml-content':
      return post.set('Content-Type', 'application/xml').send(`content=${xml}`);
    case 'text-xml-content':
      return post.set('Content-Type', 'text/xml; charset=utf-8').send(`content=${xml}`);
    case 'bare-xml':
      return post.set('Content-Type', 'application/xml').send(xml);
  }
}

/** A `<samples>` document in the legacy namespace holding the given `<sample>` inner texts. */
export function legacySamplesDocument(...samples: string[]): string {
  const body = samples.map((inner) => `  <sample>${inner}</sample>`).join('\n');
  return `<?xml version="1.0" encoding="UTF-8"?>\n<samples xmlns="http://app.geosamples.org">\n${body}\n</samples>\n`;
}

/** A sample that registers under `code`: name, a leaf object type and coordinates. */
export function minimalLegacySample(code: string, name: string, extra = ''): string {
  return (
    `<user_code>${code}</user_code><sample_type>Individual Sample</sample_type><name>${name}</name>` +
    `<latitude>35.5</latitude><longitude>-117.3</longitude>${extra}`
  );
}

export interface LegacySampleResult {
  status?: string;
  name?: string;
  igsn?: string;
  /** The `name` attribute of a failed sample. */
  attributeName?: string;
  valid?: { code: string; value: string };
  error?: string;
  /** The sample's own `<warning>` (a draft saved without coordinates). */
  warning?: string;
}

export interface LegacyResults {
  samples: LegacySampleResult[];
  valid?: { code: string; value: string };
  error?: string;
  warning?: string;
  /** Element names directly under `<results>`, in order. */
  order: string[];
}

interface XmlNode {
  '#name': string;
  _?: string;
  $?: Record<string, string>;
  $$?: XmlNode[];
}

const childText = (node: XmlNode, name: string) => node.$$?.find((child) => child['#name'] === name)?._;
const childValid = (node: XmlNode) => {
  const valid = node.$$?.find((child) => child['#name'] === 'valid');
  return valid ? { code: valid.$?.code ?? '', value: valid._ ?? '' } : undefined;
};

/** Reads a `<results>` document the way an old client would. */
export async function readLegacyResults(xml: string): Promise<LegacyResults> {
  const parsed = (await parseStringPromise(xml, { explicitChildren: true, preserveChildrenOrder: true })) as {
    results: XmlNode;
  };
  const root = parsed.results;
  const children = root.$$ ?? [];
  return {
    order: children.map((child) => child['#name']),
    samples: children
      .filter((child) => child['#name'] === 'sample')
      .map((sample) => ({
        status: childText(sample, 'status'),
        name: childText(sample, 'name'),
        igsn: childText(sample, 'igsn'),
        attributeName: sample.$?.name,
        valid: childValid(sample),
        error: childText(sample, 'error'),
        warning: childText(sample, 'warning'),
      })),
    valid: childValid(root),
    error: childText(root, 'error'),
    warning: childText(root, 'warning'),
  };
}

/** A document without its whitespace between tags and without `<warning>`, for comparing shapes. */
export function compactLegacyDocument(xml: string): string {
  return xml
    .replace(/<warning>[^<]*<\/warning>/, '')
    .replace(/>\s+</g, '><')
    .replace(/>\s+([^<\s])/g, '>$1')
    .replace(/([^>\s])\s+</g, '$1<')
    .trim();
}
