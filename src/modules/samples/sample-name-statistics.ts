import { Injectable, Logger } from '@nestjs/common';
import { Clock } from '../../core/clock';
import { NameTrigramFrequencies } from './name-trigrams';
import { SampleAccessPolicy } from './sample-access.policy';
import { SampleSearchRepository } from './sample-search.repository';

/** How long one sample of the names' trigram frequencies is used before another is taken. */
export const NAME_STATISTICS_REFRESH_MS = 10 * 60_000;
/** After a failed sample, how long before the next try. */
const RETRY_MS = 30_000;

/**
 * The names' trigram frequencies one API process uses to narrow `q` and `name` searches
 * (name-trigrams.ts), taken from a sample of the table in the background: the first searches of a
 * process, and any while a sample fails, use the whole term's LIKE (the same answer, dearer), so no
 * request ever waits for statistics. `now`: a monotonic clock in milliseconds (tests set it).
 */
@Injectable()
export class SampleNameStatistics {
  private readonly logger = new Logger(SampleNameStatistics.name);
  private frequencies: NameTrigramFrequencies | undefined;
  private due = 0;
  private taking: Promise<void> | undefined;
  now: () => number = () => performance.now();

  constructor(
    private readonly repository: SampleSearchRepository,
    private readonly policy: SampleAccessPolicy,
    private readonly clock: Clock,
  ) {}

  /**
   * The trigrams of `lowered` to ask the name's trigram index for (NameTrigramFrequencies.narrowing),
   * or undefined: the whole term's LIKE.
   */
  narrowing(lowered: string): string[] | undefined {
    return this.current()?.narrowing(lowered);
  }

  /**
   * How many public samples' names contain `lowered`, estimated from the sample
   * (NameTrigramFrequencies.publicMatches), or undefined: no sample yet, or nothing to estimate from.
   */
  publicMatches(lowered: string): number | undefined {
    return this.current()?.publicMatches(lowered);
  }

  /** The frequencies in use (none before the first sample), a new sample started in the background when due. */
  private current(): NameTrigramFrequencies | undefined {
    if (this.now() >= this.due) void this.refresh();
    return this.frequencies;
  }

  /** Takes a new sample now (once at a time); resolves when it is in use. */
  refresh(): Promise<void> {
    this.taking ??= this.take().finally(() => (this.taking = undefined));
    return this.taking;
  }

  private async take(): Promise<void> {
    this.due = this.now() + RETRY_MS;
    try {
      this.frequencies = await this.repository.nameTrigramSample(this.policy.publicCondition('s', this.clock.now()));
      this.due = this.now() + NAME_STATISTICS_REFRESH_MS;
    } catch (error) {
      this.logger.warn(`sampling the names' trigrams failed, retrying in ${RETRY_MS / 1000} s: ${String(error)}`);
    }
  }
}
