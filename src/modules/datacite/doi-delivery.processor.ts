import { InjectQueue, OnWorkerEvent, WorkerHost } from '@nestjs/bullmq';
import { BeforeApplicationShutdown, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Job, Queue } from 'bullmq';
import { Client } from 'pg';
import { AppConfig } from '../../core/config/app-config';
import { InjectAppConfig } from '../../core/config/app-config.token';
import { QueueName } from '../../core/queue/queue-names';
import { QueueProcessor } from '../../core/queue/queue-processor';
import { DoiDeliveryService } from './doi-delivery.service';
import { DRAIN_JOB, DoiRegistrationService } from './doi-registration.service';

const SWEEP_JOB = 'sweep';
/** How often a worker looks for due rows without being woken: retries, ended embargoes, lost wake-ups. */
const SWEEP_EVERY_MS = 5_000;
const LISTEN_RETRY_MS = 5_000;

/**
 * Worker side of DOI registration. The triggers on `sample` NOTIFY `sample_doi` when a change
 * commits while the workers are idle (their last claim found nothing, see SampleDoiRepository.claimDue;
 * a running drain's next round finds the change without it); this worker LISTENs and turns each
 * notification into a (de-duplicated) drain job, and a job scheduler adds a sweep every few
 * seconds that releases ended embargoes and picks up retries and lost wake-ups.
 * Drains claim rows with a lease, so concurrent drains (WORKER_CONCURRENCY per worker, any number
 * of workers) never send the same row; each sends DATACITE_CONCURRENCY requests at once. With
 * registration off, nothing is scheduled and jobs are dropped.
 */
@QueueProcessor(QueueName.DoiRegistration)
export class DoiDeliveryProcessor
  extends WorkerHost
  implements OnApplicationBootstrap, BeforeApplicationShutdown, OnApplicationShutdown
{
  private readonly logger = new Logger(DoiDeliveryProcessor.name);
  private listener?: Client;
  private listenTimer?: NodeJS.Timeout;
  private closing = false;

  constructor(
    private readonly doiDeliveryService: DoiDeliveryService,
    private readonly doiRegistrationService: DoiRegistrationService,
    @InjectQueue(QueueName.DoiRegistration) private readonly queue: Queue,
    @InjectAppConfig() private readonly config: AppConfig,
  ) {
    super();
  }

  async onApplicationBootstrap(): Promise<void> {
    if (!this.doiDeliveryService.enabled) {
      this.logger.log('DataCite registration is off (DATACITE_* unset): no DOI is sent.');
      return;
    }
    await this.queue.upsertJobScheduler(
      'doi-sweep',
      { every: SWEEP_EVERY_MS },
      { name: SWEEP_JOB, opts: { removeOnComplete: true, removeOnFail: 100 } },
    );
    await this.listen();
  }

  /** Before the queue's workers close (they wait for running jobs): a drain ends after its round. */
  beforeApplicationShutdown(): void {
    this.doiDeliveryService.stop();
  }

  async onApplicationShutdown(): Promise<void> {
    this.closing = true;
    clearTimeout(this.listenTimer);
    await this.listener?.end().catch(() => undefined);
  }

  /** Without a listener, a worker's connection error would be an uncaught exception. */
  @OnWorkerEvent('error')
  onWorkerError(error: Error): void {
    this.logger.warn(`Worker error: ${error.message}`);
  }

  async process(job: Job): Promise<void> {
    if (!this.doiDeliveryService.enabled) return; // left over from a time registration was on
    if (job.name === SWEEP_JOB) {
      const released = await this.doiDeliveryService.releaseEndedEmbargoes();
      if (released) this.logger.log(`${released} embargo(es) ended: sending to DataCite`);
    } else if (job.name !== DRAIN_JOB) {
      this.logger.warn(`Unknown job ${job.name} on ${QueueName.DoiRegistration}`);
      return;
    }
    await this.doiDeliveryService.drain();
  }

  /** A dedicated connection (LISTEN holds it); re-established after a failure. */
  private async listen(): Promise<void> {
    const client = new Client({ connectionString: this.config.database.url, connectionTimeoutMillis: 5000 });
    let failed = false;
    const retry = (error: Error) => {
      if (failed) return;
      failed = true;
      this.listener = undefined;
      void client.end().catch(() => undefined);
      if (this.closing) return;
      this.logger.warn(`Listening for sample changes failed (${error.message}); sweeps continue, retrying`);
      this.listenTimer = setTimeout(() => void this.listen(), LISTEN_RETRY_MS);
      this.listenTimer.unref();
    };
    client.on('error', retry);
    client.on('notification', () => {
      this.doiRegistrationService
        .wake()
        .catch((error: Error) => this.logger.warn(`Could not enqueue a drain: ${error.message}`));
    });
    try {
      await client.connect();
      await client.query('LISTEN sample_doi');
      this.listener = client;
      // Changes committed while nobody listened.
      await this.doiRegistrationService.wake();
    } catch (error) {
      retry(error as Error);
    }
  }
}
