import { IncomingMessage, Server, ServerResponse, createServer } from 'node:http';
import { AddressInfo } from 'node:net';

export interface RecordedDoiRequest {
  doi: string;
  event: string | undefined;
  attributes: Record<string, unknown>;
  at: number;
}

interface ScriptedAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
  /** Never answer (the client must time out). */
  hang?: boolean;
}

/**
 * A DataCite REST API double inside the test process: `PUT /dois/{doi}` with HTTP basic auth and
 * a JSON:API body, checked the way DataCite checks them (401 for bad credentials, 422 with
 * JSON:API errors for a malformed document). Records every request, keeps each DOI's state
 * (`findable` after `publish`, `registered` after `hide`), counts requests in flight, and can be
 * told to answer the next requests with a status (500, 429 with Retry-After, 422) or to hang.
 */
export class FakeDataCite {
  readonly requests: RecordedDoiRequest[] = [];
  readonly dois = new Map<
    string,
    { state: 'draft' | 'registered' | 'findable'; attributes: Record<string, unknown> }
  >();
  inFlight = 0;
  maxInFlight = 0;
  private readonly script: { match?: (doi: string) => boolean; answer: ScriptedAnswer }[] = [];
  private readonly hanging = new Set<ServerResponse>();
  private server?: Server;
  private port = 0;
  url = '';

  constructor(
    readonly repositoryId: string,
    readonly password: string,
  ) {}

  /** Listens (again, after stop(): on the same port, so a worker configured with `url` finds it back). */
  async start(): Promise<void> {
    const server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => server.listen(this.port, '127.0.0.1', () => resolve()));
    this.server = server;
    this.port = (server.address() as AddressInfo).port;
    this.url = `http://127.0.0.1:${this.port}`;
  }

  /** Down: connections refused until start() again. */
  async stop(): Promise<void> {
    for (const res of this.hanging) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = undefined;
  }

  /** The most requests (of those `which` accepts) that arrived within any `windowMs`. */
  maxInWindow(windowMs: number, which: (request: RecordedDoiRequest) => boolean = () => true): number {
    const times = this.requests.filter(which).map((request) => request.at);
    let most = 0;
    for (let first = 0, last = 0; last < times.length; last++) {
      while (times[last] - times[first] >= windowMs) first++;
      most = Math.max(most, last - first + 1);
    }
    return most;
  }

  /** The next `times` requests (for DOIs `match` accepts, default all) get `answer`. */
  answerNext(times: number, answer: ScriptedAnswer, match?: (doi: string) => boolean): void {
    for (let i = 0; i < times; i++) this.script.push({ match, answer });
  }

  requestsFor(doi: string): RecordedDoiRequest[] {
    return this.requests.filter((request) => request.doi.toUpperCase() === doi.toUpperCase());
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => (this.inFlight -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'Content-Type': 'application/vnd.api+json', ...headers });
      res.end(body === undefined ? '' : JSON.stringify(body));
    };
    const errors = (status: number, ...messages: { source?: string; title: string }[]) =>
      send(status, { errors: messages.map((message) => ({ status: String(status), ...message })) });

    const match = /^\/dois\/(.+)$/.exec(req.url ?? '');
    if (req.method !== 'PUT' || !match)
      return errors(404, { title: 'The resource you are looking for does not exist.' });
    const expected = `Basic ${Buffer.from(`${this.repositoryId}:${this.password}`).toString('base64')}`;
    if (req.headers.authorization !== expected) return errors(401, { title: 'Bad credentials.' });
    if (!(req.headers['content-type'] ?? '').startsWith('application/vnd.api+json')) {
      return errors(415, { title: 'The content type is not recognized.' });
    }
    const doi = decodeURIComponent(match[1]);
    let document: { data?: { id?: string; type?: string; attributes?: Record<string, unknown> } };
    try {
      document = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      return errors(400, { title: 'The request body is not valid JSON.' });
    }
    const attributes = document.data?.attributes ?? {};
    const event = attributes.event as string | undefined;
    this.requests.push({ doi, event, attributes, at: Date.now() });

    const index = this.script.findIndex((entry) => !entry.match || entry.match(doi));
    if (index >= 0) {
      const [{ answer }] = this.script.splice(index, 1);
      if (answer.hang) {
        this.hanging.add(res);
        res.on('close', () => this.hanging.delete(res));
        return;
      }
      return send(answer.status, answer.body, answer.headers);
    }

    const problems: { source: string; title: string }[] = [];
    if (document.data?.type !== 'dois') problems.push({ source: 'type', title: 'must be dois' });
    if (
      document.data?.id?.toUpperCase() !== doi.toUpperCase() ||
      String(attributes.doi).toUpperCase() !== doi.toUpperCase()
    ) {
      problems.push({ source: 'doi', title: 'does not match the URL' });
    }
    if (typeof attributes.url !== 'string' || !/^https?:\/\//.test(attributes.url)) {
      problems.push({ source: 'url', title: "can't be blank" });
    }
    const types = attributes.types as { resourceTypeGeneral?: string } | undefined;
    if (types?.resourceTypeGeneral !== 'PhysicalObject') problems.push({ source: 'types', title: 'is invalid' });
    for (const name of ['titles', 'creators']) {
      if (!Array.isArray(attributes[name]) || !(attributes[name] as unknown[]).length) {
        problems.push({ source: name, title: "can't be blank" });
      }
    }
    if (!attributes.publisher) problems.push({ source: 'publisher', title: "can't be blank" });
    if (!Number.isInteger(attributes.publicationYear))
      problems.push({ source: 'publicationYear', title: 'is invalid' });
    if (event !== undefined && !['publish', 'hide', 'register'].includes(event)) {
      problems.push({ source: 'event', title: 'is invalid' });
    }
    if (problems.length) return errors(422, ...problems);

    const existing = this.dois.get(doi);
    const state =
      event === 'publish'
        ? 'findable'
        : event === 'hide' || event === 'register'
          ? 'registered'
          : (existing?.state ?? 'draft');
    this.dois.set(doi, { state, attributes });
    send(existing ? 200 : 201, { data: { id: doi.toLowerCase(), type: 'dois', attributes: { ...attributes, state } } });
  }
}
