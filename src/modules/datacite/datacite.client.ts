import { DataCiteConfig } from '../../core/config/integration-config';
import { DataCiteAttributes } from '../metadata-formats/datacite.mapping';

/** `publish`: findable. `hide`: registered but not findable. */
export type DoiEvent = 'publish' | 'hide';

/** The JSON:API document of `PUT /dois/{doi}`. */
export interface DoiDocument {
  data: {
    id: string;
    type: 'dois';
    attributes: DataCiteAttributes & { url: string; event: DoiEvent; schemaVersion: string };
  };
}

export type DeliveryOutcome =
  | { kind: 'delivered' }
  /** Worth trying again (network, timeout, 408, 429, 5xx); `retryAfterMs` when DataCite said when. */
  | { kind: 'retry'; message: string; retryAfterMs?: number }
  /** DataCite refused the request itself (4xx): trying the same again cannot help. */
  | { kind: 'rejected'; message: string };

export function doiDocument(attributes: DataCiteAttributes, url: string, event: DoiEvent): DoiDocument {
  return {
    data: {
      id: attributes.doi,
      type: 'dois',
      attributes: { ...attributes, url, event, schemaVersion: 'http://datacite.org/schema/kernel-4' },
    },
  };
}

/** `Retry-After` in seconds or as an HTTP date, in milliseconds from now. */
export function retryAfterMs(header: string | null, now = Date.now()): number | undefined {
  if (!header) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** DataCite's JSON:API errors (`{errors: [{source, title}]}`) as one line; the raw text otherwise. */
export function dataCiteMessage(status: number, body: string): string {
  try {
    const parsed = JSON.parse(body) as { errors?: { source?: string; title?: string; detail?: string }[] };
    const messages = (parsed.errors ?? [])
      .map((error) => [error.source, error.title ?? error.detail].filter(Boolean).join(': '))
      .filter(Boolean);
    if (messages.length) return `DataCite answered ${status}: ${messages.join('; ')}`;
  } catch {
    // Not JSON: fall through to the text.
  }
  const text = body.replace(/\s+/g, ' ').trim().slice(0, 500);
  return `DataCite answered ${status}${text ? `: ${text}` : ''}`;
}

/**
 * The DataCite REST API, as much of it as registration needs: `PUT /dois/{doi}` creates the DOI
 * or updates it, with HTTP basic auth (repository id and password). Never throws: every answer,
 * network error and timeout becomes an outcome the caller records.
 */
export class DataCiteClient {
  private readonly authorization: string;

  constructor(private readonly config: DataCiteConfig) {
    this.authorization = `Basic ${Buffer.from(`${config.repositoryId}:${config.password}`).toString('base64')}`;
  }

  async putDoi(document: DoiDocument): Promise<DeliveryOutcome> {
    let response: Response;
    let body: string;
    try {
      response = await fetch(`${this.config.apiUrl}/dois/${encodeURIComponent(document.data.id)}`, {
        method: 'PUT',
        headers: {
          Authorization: this.authorization,
          'Content-Type': 'application/vnd.api+json',
          Accept: 'application/vnd.api+json',
        },
        body: JSON.stringify(document),
        signal: AbortSignal.timeout(this.config.timeoutMs),
      });
      body = await response.text();
    } catch (error) {
      const cause = error as Error & { cause?: { code?: string; message?: string } };
      const reason =
        cause.name === 'TimeoutError'
          ? `no answer within ${this.config.timeoutMs} ms`
          : (cause.cause?.code ?? cause.cause?.message ?? cause.message);
      return { kind: 'retry', message: `DataCite could not be reached: ${reason}` };
    }
    if (response.ok) return { kind: 'delivered' };
    const message = dataCiteMessage(response.status, body);
    if (response.status === 429 || response.status === 408 || response.status >= 500) {
      return { kind: 'retry', message, retryAfterMs: retryAfterMs(response.headers.get('retry-after')) };
    }
    return { kind: 'rejected', message };
  }
}
