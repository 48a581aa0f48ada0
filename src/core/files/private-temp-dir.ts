import { chmod, lstat, mkdir, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Files older than this are swept even when their process still runs (or its pid was reused). */
const MAX_TEMP_AGE_MS = 24 * 60 * 60 * 1000;

/**
 * A directory under the system temp dir that only this user can enter (0700), for work files
 * holding other users' data (partial exports, batch rows). Refuses a path that is a symlink or
 * belongs to someone else: another local user must not be able to pre-create it.
 */
export async function privateWorkDir(): Promise<string> {
  const uid = process.getuid?.() ?? 0;
  const dir = join(tmpdir(), `sample-registry-${uid}-work`);
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const info = await lstat(dir);
  if (!info.isDirectory() || info.uid !== uid) {
    throw new Error(`${dir} is not a directory of this user; refusing to keep work files there`);
  }
  if ((info.mode & 0o777) !== 0o700) await chmod(dir, 0o700);
  return dir;
}

/**
 * A work file's name: it starts with the pid of the process writing it, so a sweep can tell the
 * files of a process that crashed from those of one still at work.
 */
export function tempFileName(label: string): string {
  return `${process.pid}-${label}`;
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Deletes the files a crashed process left in `dir` (their pid no longer runs), and any older
 * than a day. Returns how many were deleted.
 */
export async function sweepTempFiles(dir: string, now = Date.now()): Promise<number> {
  let removed = 0;
  for (const name of await readdir(dir)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    const path = join(dir, name);
    const info = await stat(path).catch(() => undefined);
    if (!info) continue;
    const crashed = Number.isInteger(pid) && pid !== process.pid && !isAlive(pid);
    if (crashed || now - info.mtimeMs > MAX_TEMP_AGE_MS) {
      await rm(path, { force: true, recursive: true });
      removed++;
    }
  }
  return removed;
}
