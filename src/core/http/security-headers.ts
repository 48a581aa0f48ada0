import type { IncomingMessage, ServerResponse } from 'node:http';
import type { NextFunction, Request, Response } from 'express';
import helmet, { HelmetOptions } from 'helmet';

/**
 * helmet's headers, worked out once: helmet runs here against a recording response (and a request
 * that refuses to be read, so no header can depend on it), and each request then gets the recorded
 * headers in one loop instead of through helmet's chain of a dozen middleware. The headers are
 * exactly helmet's for these options.
 */
export function securityHeaders(
  options: Readonly<HelmetOptions>,
): (req: Request, res: Response, next: NextFunction) => void {
  const set: [string, string | number | readonly string[]][] = [];
  const removed: string[] = [];
  const recorder = {
    setHeader: (name: string, value: string | number | readonly string[]) => set.push([name, value]),
    removeHeader: (name: string) => removed.push(name),
  };
  const unreadable = new Proxy(
    {},
    {
      get: (_target, property) => {
        throw new Error(`helmet read the request (${String(property)}): its headers cannot be worked out once.`);
      },
    },
  );
  let finished = false;
  helmet(options)(unreadable as IncomingMessage, recorder as unknown as ServerResponse, (error?: unknown) => {
    if (error instanceof Error) throw error;
    if (error) throw new Error('helmet refused its options.');
    finished = true;
  });
  if (!finished) throw new Error('helmet did not finish synchronously: its headers cannot be worked out once.');
  return (_req, res, next) => {
    for (const [name, value] of set) res.setHeader(name, value);
    for (const name of removed) res.removeHeader(name);
    next();
  };
}
