import { BadRequestException, HttpStatus, NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ApiError } from './api-error';
import { bodyParserError } from './body-parsers';
import { HttpExceptionFilter } from './http-exception.filter';

describe('HttpExceptionFilter.resolve', () => {
  const filter = new HttpExceptionFilter();
  // The filter logs unexpected errors; keep the test output clean.
  beforeAll(() => jest.spyOn(filter['logger'], 'error').mockImplementation(() => undefined));

  it('passes an ApiError through with its headers', () => {
    const resolved = filter.resolve(ApiError.unauthorized());
    expect(resolved.status).toBe(401);
    expect(resolved.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(resolved.body.errors).toEqual({});
  });

  it('turns Nest exceptions into the error body', () => {
    expect(filter.resolve(new BadRequestException('Bad thing')).body).toEqual({ message: 'Bad thing.', errors: {} });
    expect(filter.resolve(new NotFoundException('Cannot GET /api/x')).body.message).toBe(
      'No route matches GET /api/x.',
    );
    expect(filter.resolve(new PayloadTooLargeException()).status).toBe(HttpStatus.PAYLOAD_TOO_LARGE);
  });

  it('hides unexpected errors behind a 500 without details', () => {
    const resolved = filter.resolve(new Error('password=hunter2'));
    expect(resolved).toEqual({ status: 500, body: { message: 'Internal server error.', errors: {} } });
  });

  it('answers 503 when a dependency refuses connections', () => {
    const error = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    expect(filter.resolve(error).status).toBe(503);
  });

  it('answers 409 for a unique violation that escaped a service', () => {
    const error = new QueryFailedError('INSERT', [], Object.assign(new Error('duplicate key'), { code: '23505' }));
    expect(filter.resolve(error).status).toBe(409);
  });
});

describe('bodyParserError', () => {
  it.each([
    ['entity.parse.failed', 400],
    ['entity.too.large', 413],
    ['charset.unsupported', 415],
    ['encoding.unsupported', 415],
    ['request.aborted', 400],
  ])('maps %s to %i', (type, status) => expect(bodyParserError({ type })?.getStatus()).toBe(status));

  it('leaves unknown errors alone', () => expect(bodyParserError({ type: 'other' })).toBeUndefined());
});
