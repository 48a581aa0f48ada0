import { Client } from 'pg';

function databaseName(databaseUrl: string): string {
  const name = decodeURIComponent(new URL(databaseUrl).pathname.replace(/^\//, ''));
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`Refusing to manage database "${name}": not a plain name.`);
  return name;
}

async function withMaintenanceClient<T>(databaseUrl: string, run: (client: Client) => Promise<T>): Promise<T> {
  const maintenance = new URL(databaseUrl);
  maintenance.pathname = '/postgres';
  const client = new Client({ connectionString: maintenance.toString(), connectionTimeoutMillis: 5000 });
  await client.connect();
  try {
    return await run(client);
  } finally {
    await client.end();
  }
}

/** Drops a benchmark's own database (closing its connections); nothing happens when it does not exist. */
export async function dropDatabase(databaseUrl: string): Promise<void> {
  const name = databaseName(databaseUrl);
  await withMaintenanceClient(databaseUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

export async function databaseExists(databaseUrl: string): Promise<boolean> {
  const name = databaseName(databaseUrl);
  return withMaintenanceClient(
    databaseUrl,
    async (client) => !!(await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name])).rowCount,
  );
}

/** Creates `targetUrl`'s database as a copy of `templateUrl`'s (no one may be connected to the template). */
export async function cloneDatabase(templateUrl: string, targetUrl: string): Promise<void> {
  const template = databaseName(templateUrl);
  const target = databaseName(targetUrl);
  await withMaintenanceClient(targetUrl, (client) => client.query(`CREATE DATABASE ${target} TEMPLATE ${template}`));
}
