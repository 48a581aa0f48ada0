import { ArgumentsHost, BadRequestException, HttpStatus, Logger } from '@nestjs/common';
import { AppConfig } from '../../core/config/app-config';
import { ApiError } from '../../core/http/api-error';
import { LegacyXmlError, LegacyXmlErrorReason } from './legacy-xml.error';
import { LegacyXmlExceptionFilter } from './legacy-xml.exception-filter';

interface Sent {
  status?: number;
  headers: Record<string, string>;
  contentType?: string;
  body?: string;
}

/** Runs the filter on `exception` against a stand-in Express response and returns what it sent. */
function answer(exception: unknown): Sent {
  const sent: Sent = { headers: {} };
  const response = {
    headersSent: false,
    status(code: number) {
      sent.status = code;
      return response;
    },
    set(headers: Record<string, string>) {
      Object.assign(sent.headers, headers);
      return response;
    },
    setHeader(name: string, value: string) {
      sent.headers[name] = value;
    },
    type(contentType: string) {
      sent.contentType = contentType;
      return response;
    },
    send(body: string) {
      sent.body = body;
      return response;
    },
  };
  const host = { switchToHttp: () => ({ getResponse: () => response }) } as unknown as ArgumentsHost;
  const config = { http: { xmlLimit: 5 * 1024 * 1024 } } as AppConfig;
  new LegacyXmlExceptionFilter(config).catch(exception, host);
  return sent;
}

describe('LegacyXmlExceptionFilter', () => {
  beforeAll(() => jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined));
  afterAll(() => jest.restoreAllMocks());

  it.each<[LegacyXmlErrorReason, number]>([
    ['too-large', 413],
    ['unsupported-media-type', 415],
    ['malformed', 400],
    ['forbidden-declaration', 400],
    ['missing-content', 400],
    ['wrong-root', 400],
    ['no-samples', 400],
  ])('answers a %s LegacyXmlError with an InvalidXML %i document', (reason, status) => {
    const sent = answer(new LegacyXmlError('Why it failed.', reason));
    expect(sent.status).toBe(status);
    expect(sent.contentType).toBe('application/xml; charset=utf-8');
    expect(sent.body).toContain('<valid code="InvalidXML">no</valid>');
    expect(sent.body).toContain('<error>Why it failed.</error>');
  });

  it('answers a 401 with the InvalidAuth document, the bearer hint and WWW-Authenticate', () => {
    const sent = answer(ApiError.unauthorized('Authentication credentials were not provided.'));
    expect(sent.status).toBe(401);
    expect(sent.headers['WWW-Authenticate']).toBe('Bearer');
    expect(sent.body).toBe(
      '<results>\n  <valid code="InvalidAuth">no</valid>\n  <error>Authentication credentials were not provided. ' +
        'Legacy usernames and passwords are not accepted: send a JWT access token as ' +
        '"Authorization: Bearer &lt;token&gt;".</error>\n</results>\n',
    );
  });

  it('puts the field errors of a 400 into the InvalidXML error text', () => {
    const sent = answer(ApiError.invalidField('content', 'must be a string'));
    expect(sent.status).toBe(400);
    expect(sent.body).toContain('<error>Invalid content: must be a string.</error>');
  });

  it('answers a multipart field over the limit with 413', () => {
    const sent = answer(new BadRequestException('Field value too long - content'));
    expect(sent.status).toBe(HttpStatus.PAYLOAD_TOO_LARGE);
    expect(sent.body).toContain('The content field is larger than the limit of 5242880 bytes.');
  });

  it('hides an unexpected error behind a 500 InvalidXML document without its details', () => {
    const sent = answer(new Error('password=hunter2 at /srv/app/secret.ts:12'));
    expect(sent.status).toBe(500);
    expect(sent.body).toContain('<error>Internal server error.</error>');
    expect(sent.body).not.toContain('hunter2');
  });

  it('marks every answer as deprecated', () => {
    expect(answer(new Error('x')).headers).toMatchObject({
      Deprecation: 'true',
      Link: '</api/samples/>; rel="successor-version"',
    });
  });
});
