import { validateBuiltBody } from '../../../core/http/validation';
import { CreateSampleDto, reviveCreateSampleDto } from '../../samples';
import { describeRowError } from './batch-rejected';
import { RowValidationPool, RowVerdict } from './row-validation-pool';

/** A new sample's row after the register rules: its DTO, or its error as the report shows it. */
export type NewRowCheck = { rowNumber: number; dto: CreateSampleDto } | { rowNumber: number; error: string };

/** Checks the bodies of new samples' rows against the register rules, answering in file order. */
export interface NewRowChecks {
  /** Takes one row's body; returns the checks finished so far (maybe none), in file order. */
  add(rowNumber: number, body: Record<string, unknown>): Promise<NewRowCheck[]>;
  /** Every check not returned yet, in file order. */
  drain(): Promise<NewRowCheck[]>;
}

/** Each row checked as it comes, on this thread. */
export class InlineRowChecks implements NewRowChecks {
  async add(rowNumber: number, body: Record<string, unknown>): Promise<NewRowCheck[]> {
    try {
      return [{ rowNumber, dto: await validateBuiltBody(CreateSampleDto, body) }];
    } catch (error) {
      return [{ rowNumber, error: describeRowError(error) }];
    }
  }

  drain(): Promise<NewRowCheck[]> {
    return Promise.resolve([]);
  }
}

/** Rows a thread checks per message: large enough that messaging costs little, small enough to interleave. */
const ROWS_PER_MESSAGE = 250;

interface InFlight {
  rowNumbers: number[];
  verdicts: Promise<RowVerdict[]>;
}

/**
 * Rows sent to the pool's threads a few hundred at a time, with at most four messages a thread in
 * flight: enough to keep a thread busy while this one prepares and inserts a chunk, and memory
 * stays bounded. A passing row comes back as the DTO the thread built and checked (copied, then
 * given back the classes the writer reads), so this thread neither transforms nor keeps the body.
 */
export class PooledRowChecks implements NewRowChecks {
  private gathering: { rowNumber: number; body: Record<string, unknown> }[] = [];
  private readonly inFlight: InFlight[] = [];

  constructor(private readonly pool: RowValidationPool) {}

  async add(rowNumber: number, body: Record<string, unknown>): Promise<NewRowCheck[]> {
    this.gathering.push({ rowNumber, body });
    if (this.gathering.length < ROWS_PER_MESSAGE) return [];
    this.send();
    return this.inFlight.length > 4 * this.pool.size ? this.receive(this.inFlight.shift() as InFlight) : [];
  }

  async drain(): Promise<NewRowCheck[]> {
    if (this.gathering.length) this.send();
    const checks: NewRowCheck[] = [];
    for (let next = this.inFlight.shift(); next; next = this.inFlight.shift())
      checks.push(...(await this.receive(next)));
    return checks;
  }

  private send(): void {
    const rows = this.gathering;
    this.gathering = [];
    const verdicts = this.pool.validate(rows.map((row) => row.body));
    verdicts.catch(() => undefined); // awaited (and thrown) when received
    this.inFlight.push({ rowNumbers: rows.map((row) => row.rowNumber), verdicts });
  }

  private async receive({ rowNumbers, verdicts }: InFlight): Promise<NewRowCheck[]> {
    const answers = await verdicts;
    return rowNumbers.map((rowNumber, index) => {
      const answer = answers[index];
      return typeof answer === 'string'
        ? { rowNumber, error: answer }
        : { rowNumber, dto: reviveCreateSampleDto(answer) };
    });
  }
}
