import { WriteStream, createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { finished } from 'node:stream/promises';

/**
 * A file written by a worker: mode 0600 (it holds users' data), waits for the disk when the
 * stream asks to (back-pressure), and remembers a write error instead of crashing the process.
 */
export class FileSink {
  readonly stream: WriteStream;
  private failure?: Error;

  constructor(path: string) {
    this.stream = createWriteStream(path, { mode: 0o600 });
    // Without a listener a disk error would be an uncaught exception in the worker.
    this.stream.on('error', (error) => {
      this.failure ??= error;
    });
  }

  check(): void {
    if (this.failure) throw this.failure;
  }

  async write(text: string): Promise<void> {
    this.check();
    if (!this.stream.write(text)) await once(this.stream, 'drain');
  }

  async end(): Promise<void> {
    this.check();
    this.stream.end();
    await finished(this.stream);
    this.check();
  }

  destroy(): void {
    this.stream.destroy();
  }
}
