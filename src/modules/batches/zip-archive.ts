import { Readable } from 'node:stream';
import { createInflateRaw } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated. */
  method: number;
  compressed: number;
  /** As the archive declares it: a hostile file may lie; ZipArchive.inflate counts real bytes. */
  declaredSize: number;
  localHeaderOffset: number;
}

/** The archive is damaged, lies about itself, or is over a limit; `reason` says which. */
export class ZipProblem extends Error {
  constructor(
    readonly reason: 'damaged' | 'zip64' | 'too-many-entries' | 'too-large' | 'ratio' | 'size-mismatch',
    message: string,
  ) {
    super(message);
  }
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** Compressed bytes handed to zlib at a time: zlib works on the thread pool, never the event loop. */
const FEED_CHUNK = 64 * 1024;

/**
 * A zip archive in memory, read without trusting what it declares: entries are inflated through
 * zlib's asynchronous streams (off the event loop) while the bytes that actually come out are
 * counted, and inflation stops as soon as a limit is passed.
 */
export class ZipArchive {
  readonly entries: ZipEntry[];

  constructor(
    private readonly buffer: Buffer,
    maxEntries: number,
  ) {
    this.entries = readDirectory(buffer, maxEntries);
  }

  entry(name: string): ZipEntry | undefined {
    return this.entries.find((entry) => entry.name === name);
  }

  /**
   * Inflates one entry, counting real bytes. Throws ZipProblem `too-large` past `limit` bytes,
   * `ratio` when it inflates more than `maxRatio` times its compressed size (past 1 MiB), and
   * `size-mismatch` when it does not inflate to its declared size. Keeps the first `keep` bytes.
   */
  async inflate(entry: ZipEntry, options: { limit: number; maxRatio: number; keep?: number }): Promise<InflatedEntry> {
    const content = this.open(entry);
    const keep = options.keep ?? 0;
    const head: Buffer[] = [];
    let kept = 0;
    let size = 0;
    const take = (chunk: Buffer) => {
      size += chunk.length;
      if (kept < keep) {
        head.push(chunk.subarray(0, keep - kept));
        kept += Math.min(chunk.length, keep - kept);
      }
      if (size > options.limit) throw new ZipProblem('too-large', `${entry.name} inflates past ${options.limit} bytes`);
      if (size > 1024 * 1024 && size > entry.compressed * options.maxRatio) {
        throw new ZipProblem('ratio', `${entry.name} inflates more than ${options.maxRatio} times its size`);
      }
    };
    try {
      for await (const chunk of content) take(chunk as Buffer);
    } catch (error) {
      content.destroy();
      if (error instanceof ZipProblem) throw error;
      throw new ZipProblem('damaged', `${entry.name} could not be inflated: ${(error as Error).message}`);
    }
    if (size !== entry.declaredSize) {
      throw new ZipProblem('size-mismatch', `${entry.name} declares ${entry.declaredSize} bytes but holds ${size}`);
    }
    return { size, head: Buffer.concat(head) };
  }

  /**
   * One entry's content as a stream, inflated as it is read (zlib's asynchronous stream, off the
   * event loop). Nothing is counted here: inflate() counts it, and the worker reads parts only of
   * an archive whose entries inflate() accepted.
   */
  open(entry: ZipEntry): Readable {
    const data = this.compressedData(entry);
    if (entry.method === 0) return Readable.from(chunks(data), { objectMode: false });
    if (entry.method !== 8) {
      throw new ZipProblem('damaged', `${entry.name} uses an unsupported compression method (${entry.method})`);
    }
    return Readable.from(chunks(data), { objectMode: false }).pipe(createInflateRaw());
  }

  private compressedData(entry: ZipEntry): Buffer {
    const at = entry.localHeaderOffset;
    if (at + 30 > this.buffer.length || this.buffer.readUInt32LE(at) !== LOCAL_SIGNATURE) {
      throw new ZipProblem('damaged', `the local header of ${entry.name} is missing`);
    }
    const start = at + 30 + this.buffer.readUInt16LE(at + 26) + this.buffer.readUInt16LE(at + 28);
    if (start + entry.compressed > this.buffer.length) {
      throw new ZipProblem('damaged', `${entry.name} is cut short`);
    }
    return this.buffer.subarray(start, start + entry.compressed);
  }
}

export interface InflatedEntry {
  /** Bytes that actually came out. */
  size: number;
  /** The first bytes, as many as were asked for. */
  head: Buffer;
}

function* chunks(data: Buffer): Generator<Buffer> {
  for (let at = 0; at < data.length; at += FEED_CHUNK) yield data.subarray(at, at + FEED_CHUNK);
}

/** The central directory (what the archive declares), without inflating anything. */
function readDirectory(buffer: Buffer, maxEntries: number): ZipEntry[] {
  const searchFrom = Math.max(0, buffer.length - 65_557);
  let eocd = -1;
  for (let i = buffer.length - 22; i >= searchFrom; i--) {
    if (buffer.readUInt32LE(i) === EOCD_SIGNATURE) {
      eocd = i;
      break;
    }
  }
  if (eocd < 0) throw new ZipProblem('damaged', 'no end of central directory');
  const count = buffer.readUInt16LE(eocd + 10);
  let offset = buffer.readUInt32LE(eocd + 16);
  if (count === 0xffff || offset === 0xffffffff) throw new ZipProblem('zip64', 'zip64 archive');
  if (count > maxEntries) throw new ZipProblem('too-many-entries', `${count} entries`);
  const entries: ZipEntry[] = [];
  for (let n = 0; n < count; n++) {
    if (offset + 46 > buffer.length || buffer.readUInt32LE(offset) !== CENTRAL_SIGNATURE) {
      throw new ZipProblem('damaged', 'central directory damaged');
    }
    const nameLength = buffer.readUInt16LE(offset + 28);
    const extraLength = buffer.readUInt16LE(offset + 30);
    const commentLength = buffer.readUInt16LE(offset + 32);
    entries.push({
      method: buffer.readUInt16LE(offset + 10),
      compressed: buffer.readUInt32LE(offset + 20),
      declaredSize: buffer.readUInt32LE(offset + 24),
      localHeaderOffset: buffer.readUInt32LE(offset + 42),
      name: buffer.toString('utf8', offset + 46, offset + 46 + nameLength),
    });
    offset += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
