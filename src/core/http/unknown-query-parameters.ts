import { ApiError } from './api-error';

/**
 * A 400 naming every query parameter of `query` that is not in `known`: a misspelt parameter must
 * not be ignored quietly. `what` ends the message (`is not a parameter of …`).
 */
export function refuseUnknownQueryParameters(query: object, known: readonly string[], what: string): void {
  const unknown = Object.keys(query).filter((name) => !known.includes(name));
  if (!unknown.length) return;
  throw ApiError.badRequest(
    `Unknown query parameter${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}.`,
    Object.fromEntries(unknown.map((name) => [name, [`is not a parameter of ${what}`]])),
  );
}
