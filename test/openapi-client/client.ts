/**
 * A typed client of the Sample Registry, as an integrator writes one: types generated from
 * openapi/openapi.json by openapi-typescript (into ./generated/schema.d.ts), calls made with
 * openapi-fetch. The e2e suite (test/openapi-client.e2e-spec.ts) generates the types, compiles
 * this file with `strict` and runs it against the API: `node client.js <base URL> <IGSN>`.
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './generated/schema';

type ErrorBody = components['schemas']['ErrorBody'];
type Sample = components['schemas']['SampleDto'];
type SampleResponse = components['schemas']['SampleResponse'];

/** A fetch negotiates JSON, JSON-LD, DataCite XML or CSV; without an Accept header the answer is JSON. */
function isSampleJson(body: unknown): body is SampleResponse {
  return typeof body === 'object' && body !== null && 'data' in body;
}

async function main(baseUrl: string, igsn: string): Promise<void> {
  const api = createClient<paths>({ baseUrl });

  const fetched = await api.GET('/api/samples/{igsn}', { params: { path: { igsn } } });
  if (!isSampleJson(fetched.data)) throw new Error(`fetch failed with ${fetched.response.status}`);
  const sample: Sample = fetched.data.data;

  const search = await api.GET('/api/samples', { params: { query: { q: sample.name, page_size: 10 } } });
  if (!search.data) throw new Error(`search failed with ${search.response.status}`);
  const found: string[] = search.data.data.map((row) => row.igsn);

  const missing = await api.GET('/api/samples/{igsn}', { params: { path: { igsn: 'IENOSUCH0000' } } });
  const error: ErrorBody | undefined = missing.error;

  process.stdout.write(
    JSON.stringify({
      fetched: { igsn: sample.igsn, name: sample.name },
      search: { count: search.data.count, igsns: found },
      missing: { status: missing.response.status, message: error?.message, errors: error?.errors },
    }),
  );
}

const [baseUrl, igsn] = process.argv.slice(2);
if (!baseUrl || !igsn) throw new Error('usage: node client.js <base URL> <IGSN>');
main(baseUrl, igsn).catch((error: unknown) => {
  process.stderr.write(`${String(error)}\n`);
  process.exit(1);
});
