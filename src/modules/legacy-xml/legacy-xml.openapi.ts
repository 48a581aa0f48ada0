import { HttpCode, HttpStatus, applyDecorators } from '@nestjs/common';
import { ApiBearerAuth, ApiBody, ApiConsumes, ApiOperation, ApiResponse } from '@nestjs/swagger';
import {
  LEGACY_XML_DEPRECATION_HEADERS,
  legacyInvalidAuthDocument,
  legacyInvalidXmlDocument,
  legacyResultsDocument,
} from './legacy-xml.responses';

/** The media types the `content` field is read from (CONTRACT §7). */
export const LEGACY_XML_REQUEST_MEDIA_TYPES = [
  'application/x-www-form-urlencoded',
  'multipart/form-data',
  'application/json',
  'application/xml',
  'text/xml',
];

const exampleDocument = (...sample: string[]) =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<samples xmlns="http://app.geosamples.org">',
    '  <sample>',
    ...sample.map((line) => `    ${line}`),
    '  </sample>',
    '</samples>',
  ].join('\n');

const EXAMPLE_DOCUMENTS = {
  register: exampleDocument(
    '<user_code>IEABC</user_code>',
    '<sample_type>Individual Sample</sample_type>',
    '<name>AT-2024-017</name>',
    '<material>Rock</material>',
    '<description>arkose</description>',
    '<latitude>35.5134</latitude>',
    '<longitude>-117.3463</longitude>',
  ),
  update: exampleDocument('<igsn>IEABC0001</igsn>', '<description>arkose, re-examined</description>'),
};

/** Per-sample refusals the examples show. */
const EXAMPLE_REFUSALS = {
  register: 'You may not register samples under registry code IEXYZ.',
  update: 'You may not edit this sample.',
};

const xml = (examples: Record<string, { summary: string; value: string }>) => ({
  'application/xml': { schema: { type: 'string' as const }, examples },
});

const invalidXml = (summary: string, message: string) => ({ summary, value: legacyInvalidXmlDocument(message) });

/**
 * The OpenAPI description shared by the legacy XML routes: deprecated, a `content` field in any of
 * the accepted media types, and the XML documents they answer with (built by the same functions).
 */
export function LegacyXmlEndpoint(operation: 'register' | 'update', summary: string): MethodDecorator {
  const verb = operation === 'register' ? 'saved' : 'updated';
  const igsnNote = operation === 'update' ? ' Every <sample> needs an <igsn> naming the sample to change.' : '';
  return applyDecorators(
    ApiBearerAuth('bearer'),
    ApiOperation({
      summary,
      deprecated: true,
      description:
        'Deprecated v1 XML interface, kept for migrating clients; new integrations send JSON to /api/samples/. ' +
        'The `content` field holds a <samples> document with one <sample> per sample (names unique within the ' +
        `document); each is mapped to the JSON sample body (see docs/integrations/legacy-xml-mapping.md in the repository) and ${verb} on its own, ` +
        'so one invalid sample does not stop the others.' +
        igsnNote +
        ' The field may be sent form-encoded (also unencoded: `content=<?xml …`), as multipart, as JSON ' +
        '`{"content": …}`, or as an application/xml or text/xml body holding `content=…` or the bare document. ' +
        'Status 200 when at least one sample was ' +
        `${verb}; 400 when none was. Only JWT bearer tokens are accepted.`,
    }),
    HttpCode(HttpStatus.OK),
    ApiConsumes(...LEGACY_XML_REQUEST_MEDIA_TYPES),
    ApiBody({
      schema: {
        type: 'object',
        required: ['content'],
        properties: {
          content: {
            type: 'string',
            description: 'The <samples> XML document.',
            example: EXAMPLE_DOCUMENTS[operation],
          },
        },
      },
    }),
    ApiResponse({
      status: HttpStatus.OK,
      description: `At least one sample was ${verb}; every sample's outcome is listed in document order.`,
      headers: {
        Deprecation: { description: 'Always `true`.', schema: { type: 'string', example: 'true' } },
        Link: {
          description: 'The JSON successor of this interface.',
          schema: { type: 'string', example: LEGACY_XML_DEPRECATION_HEADERS.Link },
        },
      },
      content: xml({
        success: {
          summary: `One sample ${verb}`,
          value: legacyResultsDocument([{ status: verb, name: 'AT-2024-017', igsn: 'IEABC0001' }]),
        },
        partial: {
          summary: `One sample ${verb}, one refused`,
          value: legacyResultsDocument([
            { status: verb, name: 'AT-2024-017', igsn: 'IEABC0001' },
            {
              status: 'failed',
              name: 'AT-2024-018',
              error: 'Validation failed. latitude: must not be greater than 90.',
            },
          ]),
        },
      }),
    }),
    ApiResponse({
      status: HttpStatus.BAD_REQUEST,
      description: `The document could not be read (InvalidXML), or no sample was ${verb} (InvalidSample per sample).`,
      content: xml({
        invalidSample: {
          summary: `No sample ${verb}`,
          value: legacyResultsDocument([{ status: 'failed', name: 'AT-2024-017', error: EXAMPLE_REFUSALS[operation] }]),
        },
        invalidXml: invalidXml(
          'Unreadable document',
          'The document could not be read as XML: Unexpected close tag (line 3, column 12).',
        ),
      }),
    }),
    ApiResponse({
      status: HttpStatus.UNAUTHORIZED,
      description: 'No valid JWT bearer token (legacy username/password are not accepted).',
      content: xml({
        invalidAuth: {
          summary: 'No token',
          value: legacyInvalidAuthDocument(
            'Authentication credentials were not provided. Legacy usernames and passwords are not accepted: ' +
              'send a JWT access token as "Authorization: Bearer <token>".',
          ),
        },
      }),
    }),
    ApiResponse({
      status: HttpStatus.PAYLOAD_TOO_LARGE,
      description: 'The body or the document is larger than XML_BODY_LIMIT.',
      content: xml({
        tooLarge: invalidXml('Too large', 'Request body is larger than the limit of 5242880 bytes.'),
      }),
    }),
    ApiResponse({
      status: HttpStatus.UNSUPPORTED_MEDIA_TYPE,
      description: 'The body is in a media type the content field cannot be read from.',
      content: xml({
        unsupported: invalidXml(
          'Unsupported media type',
          'Unsupported media type "application/pdf"; send the content field as a form, as JSON or as XML.',
        ),
      }),
    }),
  );
}
