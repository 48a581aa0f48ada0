import { readFileSync } from 'node:fs';
import { formatNumber, markdownTable } from './markdown';

/*
 * Summaries of a V8 CPU profile (`node --cpu-prof`, a .cpuprofile file): the heaviest frames by self
 * and by total time, and self time by package, optionally within a time window (the bench records
 * when each measured run started and ended, on the same monotonic clock as the profile's timestamps).
 *
 *   node -r ts-node/register/transpile-only bench/lib/cpu-profile.ts <file.cpuprofile> [--window <label>] [--top <n>]
 *
 * With --window (a substring of a label in the `windows.json` beside the profile), only the
 * samples taken during that measured run count; without, the whole profile. With --before, self time
 * by package of an earlier profile (the same window label) beside this one's, as shares of busy time.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
  columnNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A measured run's bounds, in microseconds of the monotonic clock (`process.hrtime`, as V8's profile). */
export interface ProfileWindow {
  label: string;
  startMicros: number;
  endMicros: number;
  /** Answers received in the run, for a cost per request. */
  requests?: number;
}

export interface FrameCost {
  frame: string;
  selfMs: number;
  totalMs: number;
}

export interface ProfileSummary {
  /** Milliseconds sampled in the window, idle excluded. */
  busyMs: number;
  idleMs: number;
  frames: FrameCost[];
  packages: { name: string; selfMs: number }[];
}

const IDLE = '(idle)';

/** Where a frame's code lives: a package under node_modules, node's own, or the application. */
function packageOf(url: string, functionName: string): string {
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  if (url.startsWith('node:')) return 'node';
  const match = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (match) return match[1];
  const src = /\/(src|dist\/src)\/(.*)$/.exec(url);
  return src ? `app: ${src[2].split('/').slice(0, -1).join('/') || '.'}` : url;
}

function frameName(frame: CallFrame): string {
  const name = frame.functionName || '(anonymous)';
  if (!frame.url) return name;
  const file = frame.url.replace(/^file:\/\//, '').replace(/^.*node_modules\//, '');
  const short = file.includes('/src/') ? file.slice(file.lastIndexOf('/src/') + 1) : file;
  return `${name} ${short}:${frame.lineNumber + 1}`;
}

export function summariseProfile(profile: CpuProfile, window?: Pick<ProfileWindow, 'startMicros' | 'endMicros'>) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<string, number>();
  const total = new Map<string, number>();
  const packages = new Map<string, number>();
  let busy = 0;
  let idle = 0;
  let time = profile.startTime;
  for (let i = 0; i < profile.samples.length; i += 1) {
    time += profile.timeDeltas[i] ?? 0;
    // A sample stands for the time until the next one.
    const micros = profile.timeDeltas[i + 1] ?? 0;
    if (window && (time < window.startMicros || time > window.endMicros)) continue;
    const node = byId.get(profile.samples[i]);
    if (!node) continue;
    const ms = micros / 1000;
    if (node.callFrame.functionName === IDLE) {
      idle += ms;
      continue;
    }
    busy += ms;
    const name = frameName(node.callFrame);
    self.set(name, (self.get(name) ?? 0) + ms);
    const pkg = packageOf(node.callFrame.url, node.callFrame.functionName);
    packages.set(pkg, (packages.get(pkg) ?? 0) + ms);
    // Each frame once per sample, however often it recurses.
    const seen = new Set<string>();
    for (let id: number | undefined = node.id; id !== undefined; id = parent.get(id)) {
      const frame = byId.get(id);
      if (!frame || frame.callFrame.functionName === '(root)') continue;
      const key = frameName(frame.callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      total.set(key, (total.get(key) ?? 0) + ms);
    }
  }
  const frames = [...new Set([...self.keys(), ...total.keys()])].map((frame) => ({
    frame,
    selfMs: self.get(frame) ?? 0,
    totalMs: total.get(frame) ?? 0,
  }));
  return {
    busyMs: busy,
    idleMs: idle,
    frames,
    packages: [...packages.entries()].map(([name, selfMs]) => ({ name, selfMs })).sort((a, b) => b.selfMs - a.selfMs),
  } satisfies ProfileSummary;
}

/** Markdown tables: the `top` frames by self time, by total time (application code only), and self time by package. */
export function profileTables(summary: ProfileSummary, top = 10, requests?: number): string {
  const share = (ms: number) => `${((100 * ms) / Math.max(summary.busyMs, 1e-9)).toFixed(1)}%`;
  const perRequest = (ms: number) => (requests ? formatNumber((1000 * ms) / requests, 0) : '');
  const head = requests ? ['µs / request'] : [];
  const row = (name: string, ms: number) => [name, share(ms), ...(requests ? [perRequest(ms)] : [])];
  const bySelf = [...summary.frames].sort((a, b) => b.selfMs - a.selfMs).slice(0, top);
  const byTotal = summary.frames
    .filter((frame) => frame.frame.includes('src/'))
    .sort((a, b) => b.totalMs - a.totalMs)
    .slice(0, top);
  return [
    `Busy ${formatNumber(summary.busyMs, 0)} ms, idle ${formatNumber(summary.idleMs, 0)} ms.`,
    '',
    markdownTable(
      ['Frame (self)', 'Self', ...head],
      bySelf.map((frame) => row(frame.frame, frame.selfMs)),
    ),
    '',
    markdownTable(
      ['Package (self)', 'Self', ...head],
      summary.packages.slice(0, top).map((p) => row(p.name, p.selfMs)),
    ),
    '',
    markdownTable(
      ['Application frame (total)', 'Total', ...head],
      byTotal.map((frame) => row(frame.frame, frame.totalMs)),
    ),
  ].join('\n');
}

/** Self time by package, as shares of the busy time, of an earlier profile beside a later one. */
export function comparePackages(before: ProfileSummary, after: ProfileSummary, top = 10): string {
  const share = (summary: ProfileSummary, name: string) => {
    const ms = summary.packages.find((p) => p.name === name)?.selfMs ?? 0;
    return (100 * ms) / Math.max(summary.busyMs, 1e-9);
  };
  const names = [...new Set([...before.packages, ...after.packages].map((p) => p.name))]
    .map((name) => ({ name, before: share(before, name), after: share(after, name) }))
    .sort((a, b) => Math.max(b.before, b.after) - Math.max(a.before, a.after))
    .slice(0, top);
  return markdownTable(
    ['Package (self)', 'Before', 'After'],
    names.map((row) => [row.name, `${row.before.toFixed(1)}%`, `${row.after.toFixed(1)}%`]),
  );
}

function readSummary(file: string, label: string | undefined) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  let window: ProfileWindow | undefined;
  if (label) {
    const windowsFile = file.replace(/[^/]*$/, 'windows.json');
    const windows = JSON.parse(readFileSync(windowsFile, 'utf8')) as ProfileWindow[];
    window = windows.find((candidate) => candidate.label.includes(label));
    if (!window) throw new Error(`No window labelled like "${label}" in ${windowsFile}.`);
  }
  return { summary: summariseProfile(profile, window), window };
}

function main(argv: string[]): void {
  const option = (name: string) => {
    const at = argv.indexOf(name);
    return at >= 0 ? argv.splice(at, 2)[1] : undefined;
  };
  const label = option('--window');
  const top = Number(option('--top') ?? 10);
  const beforeFile = option('--before');
  const [file] = argv;
  if (!file) {
    throw new Error(
      'usage: cpu-profile.ts <file.cpuprofile> [--window <label>] [--top <n>] [--before <earlier.cpuprofile>]',
    );
  }
  const { summary, window } = readSummary(file, label);
  const tables = beforeFile
    ? comparePackages(readSummary(beforeFile, label).summary, summary, top)
    : profileTables(summary, top, window?.requests);
  process.stdout.write(`${window ? `${window.label}\n\n` : ''}${tables}\n`);
}

if (require.main === module) main(process.argv.slice(2));
