import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { privateWorkDir, sweepTempFiles } from '../../core/files/private-temp-dir';
import { FilesService } from '../files/files.service';
import { BackgroundJobsService } from './background-jobs.service';

const SWEEP_INTERVAL_MS = 60_000;
/** Jobs younger than this are left alone: their enqueue may simply not have happened yet. */
const GRACE_MS = 30_000;

/**
 * Worker side (CONTRACT §8): Redis may lose every queue entry. When a worker starts, and every
 * minute, job rows still pending or processing without a live queue entry are enqueued again,
 * expired files (exports) are deleted, and work files that a crashed process left on this
 * machine's disk (partial exports, batch rows) are deleted.
 */
@Injectable()
export class JobRecoveryService implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(JobRecoveryService.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly backgroundJobsService: BackgroundJobsService,
    private readonly filesService: FilesService,
    private readonly clock: Clock,
  ) {}

  onApplicationBootstrap(): void {
    this.running = this.sweep(0);
    this.timer = setInterval(() => {
      this.running = this.sweep(GRACE_MS);
    }, SWEEP_INTERVAL_MS);
    this.timer.unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.running;
  }

  async sweep(graceMs: number): Promise<void> {
    try {
      const now = this.clock.now();
      const recovered = await this.backgroundJobsService.recover(new Date(now.getTime() - graceMs));
      if (recovered) this.logger.warn(`Re-enqueued ${recovered} job(s) that had no queue entry`);
      const removed = await this.filesService.removeExpired(now);
      if (removed) this.logger.log(`Removed ${removed} expired file(s)`);
      const leftovers = await sweepTempFiles(await privateWorkDir());
      if (leftovers) this.logger.warn(`Removed ${leftovers} work file(s) left by a crashed process`);
    } catch (error) {
      this.logger.warn(`Recovery sweep failed: ${(error as Error).message}`);
    }
  }
}
