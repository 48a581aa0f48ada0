import 'reflect-metadata';
import { readFileSync } from 'node:fs';
import { Pool } from 'pg';
import { ApiProcess, freePort } from '../lib/api-process';
import { runHttpLoad } from '../lib/http-load';
import { formatNumber, markdownTable } from '../lib/markdown';
import { apiEnvironment, benchConfig, benchSettings, ensureRegistrant, openBenchContext } from './setup';

/*
 * The API's CPU per request of two builds, side by side, on a machine others are using:
 *
 *   node -r ts-node/register/transpile-only bench/samples/cpu-ab.ts <before/dist/src/main.js> <after/dist/src/main.js>
 *
 * Both builds serve the bench database (BENCH_SAMPLES, as `npm run bench:samples` left it, e.g.
 * BENCH_SAMPLES=100000) at once; each run loads one of them with a few connections for a few
 * seconds, alternating before/after over several rounds so that a change in the machine's load
 * falls on both, and reads the CPU time the API process spent (utime + stime from /proc) per
 * answer. Light on purpose (BENCH_AB_CONNECTIONS, 4), so it can run beside other work: it measures
 * CPU per request, not throughput. BENCH_AB_KINDS=list measures the list page alone.
 */

const TICK_MS = 10; // USER_HZ is 100 on Linux.

function cpuMs(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
}

async function main(): Promise<void> {
  const [beforeEntry, afterEntry] = process.argv.slice(2);
  if (!beforeEntry || !afterEntry) throw new Error('usage: cpu-ab.ts <before main.js> <after main.js>');
  const settings = benchSettings();
  const rounds = Number(process.env.BENCH_AB_ROUNDS ?? 3);
  const seconds = Number(process.env.BENCH_AB_SECONDS ?? 5);
  const connections = Number(process.env.BENCH_AB_CONNECTIONS ?? 4);
  // BENCH_AB_KINDS=list (or `token`, `anonymous`, comma-separated): only the requests whose name has one of the words.
  const only = (process.env.BENCH_AB_KINDS ?? '')
    .split(',')
    .map((word) => word.trim().toLowerCase())
    .filter(Boolean);
  const context = await openBenchContext(benchConfig(settings));
  const pool = new Pool({ connectionString: settings.databaseUrl, max: 2 });
  const apis: { label: string; api: ApiProcess }[] = [];
  try {
    const token = await (await ensureRegistrant(context, settings.samples)).issueAccessToken();
    const { rows } = await pool.query<{ igsn: string }>(
      `SELECT igsn FROM sample WHERE metadata_store_status = 'published' AND NOT is_deactivated
        ORDER BY id DESC LIMIT 5000`,
    );
    const igsns = rows.map((row) => row.igsn);
    for (const [label, entry] of [
      ['before', beforeEntry],
      ['after', afterEntry],
    ] as const) {
      const port = await freePort();
      apis.push({
        label,
        api: await ApiProcess.start({ entry, env: apiEnvironment(settings), port, readyPath: '/api/health/ready/' }),
      });
    }
    let n = 0;
    const fetch = {
      method: 'GET' as const,
      setupRequest: (r: object) => ({ ...r, path: `/api/samples/${igsns[n++ % igsns.length]}/` }),
    };
    const list = {
      method: 'GET' as const,
      setupRequest: (r: object) => ({ ...r, path: `/api/samples/?page_size=25&page=${1 + (n++ % 5)}` }),
    };
    const every: { name: string; requests: (typeof fetch)[]; headers: Record<string, string> }[] = [
      { name: 'Fetch, anonymous', requests: [fetch], headers: {} },
      { name: 'Fetch, bearer token', requests: [fetch], headers: { authorization: `Bearer ${token}` } },
      { name: 'List, page_size=25', requests: [list], headers: {} },
    ];
    const kinds = every.filter(
      (kind) => only.length === 0 || only.some((word) => kind.name.toLowerCase().includes(word)),
    );
    const totals = new Map<string, { cpu: number; answers: number; rounds: number[] }>();
    for (let round = 0; round < rounds; round += 1) {
      for (const kind of kinds) {
        // Alternate which build goes first, so neither always follows the other.
        const order = round % 2 === 0 ? apis : [...apis].reverse();
        for (const { label, api } of order) {
          const pid = api.pid;
          if (pid === undefined) throw new Error(`The ${label} API has no pid.`);
          let cpu = 0;
          const result = await runHttpLoad({
            url: api.baseUrl,
            connections,
            durationSeconds: seconds,
            warmup: { durationSeconds: 1 },
            headers: kind.headers,
            requests: kind.requests,
            // The API's CPU over the measured part only (after the warm-up).
            hooks: {
              watch: () => {
                const start = cpuMs(pid);
                return {
                  stop: () => {
                    cpu = cpuMs(pid) - start;
                    return Promise.resolve(undefined);
                  },
                };
              },
            },
          });
          const key = `${kind.name}\u0000${label}`;
          const total = totals.get(key) ?? { cpu: 0, answers: 0, rounds: [] };
          const answers = result.ok;
          total.cpu += cpu;
          total.answers += answers;
          total.rounds.push(cpu / answers);
          totals.set(key, total);
          process.stdout.write(
            `${kind.name}, ${label}: ${(cpu / answers).toFixed(3)} ms CPU per answer (${answers} answers)\n`,
          );
        }
      }
    }
    const table = kinds.map((kind) => {
      const [before, after] = apis.map(({ label }) => totals.get(`${kind.name}\u0000${label}`));
      const ms = (t?: { cpu: number; answers: number }) => (t ? t.cpu / t.answers : NaN);
      const spread = (t?: { rounds: number[] }) =>
        t ? `${formatNumber(Math.min(...t.rounds), 2)}-${formatNumber(Math.max(...t.rounds), 2)}` : '';
      return [
        kind.name,
        formatNumber(ms(before), 2),
        spread(before),
        formatNumber(ms(after), 2),
        spread(after),
        formatNumber(ms(after) / ms(before), 2),
      ];
    });
    process.stdout.write(
      `\n${markdownTable(['Request', 'Before ms', 'Before range', 'After ms', 'After range', 'After ÷ before'], table)}\n`,
    );
  } finally {
    for (const { api } of apis) await api.stop();
    await pool.end();
    await context.close();
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`cpu-ab failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exitCode = 1;
});
