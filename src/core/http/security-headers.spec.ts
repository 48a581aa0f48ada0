import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';
import { securityHeaders } from './security-headers';

function recordingResponse() {
  const headers = new Map<string, unknown>([['x-powered-by', 'Express']]);
  return {
    headers,
    setHeader: (name: string, value: unknown) => headers.set(name.toLowerCase(), value),
    removeHeader: (name: string) => headers.delete(name.toLowerCase()),
  };
}

describe('securityHeaders', () => {
  const options: HelmetOptions = {
    contentSecurityPolicy: {
      directives: { 'img-src': ["'self'", 'data:'], 'style-src': ["'self'", "'unsafe-inline'"] },
    },
  };

  it('sets exactly the headers helmet sets, and removes what it removes', () => {
    const byHelmet = recordingResponse();
    helmet(options)({} as IncomingMessage, byHelmet as unknown as ServerResponse, () => undefined);
    const precomputed = recordingResponse();
    let called = false;
    securityHeaders(options)({} as Request, precomputed as unknown as Response, () => (called = true));
    expect(called).toBe(true);
    expect([...precomputed.headers.entries()]).toEqual([...byHelmet.headers.entries()]);
    expect(precomputed.headers.get('x-content-type-options')).toBe('nosniff');
    expect(precomputed.headers.has('x-powered-by')).toBe(false);
  });

  it('refuses options whose headers depend on the request', () => {
    expect(() =>
      securityHeaders({
        contentSecurityPolicy: {
          directives: { 'script-src': ["'self'", (req: IncomingMessage) => `'nonce-${String(req.headers.host)}'`] },
        },
      }),
    ).toThrow(/read the request/);
  });
});
