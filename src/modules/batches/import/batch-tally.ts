import { ResolvedWrite } from '../../samples';

/**
 * The new samples a batch inserts: how many, the first and last IGSN, what they share. Chunks are
 * added as their inserts start, before their IGSNs are minted: the IGSNs are read when asked.
 */
export class BatchTally {
  count = 0;
  private firstWrite?: ResolvedWrite;
  private lastWrite?: ResolvedWrite;
  private readonly objectTypeIds = new Set<number | undefined>();
  private readonly codes = new Set<string | undefined>();

  /** One chunk, in file order. */
  add(writes: ResolvedWrite[]): void {
    if (!writes.length) return;
    for (const write of writes) {
      // New batch rows always resolve an object type (only reserved samples have none).
      this.objectTypeIds.add(write.columns.objectTypeId ?? undefined);
      this.codes.add(write.columns.registryCode);
    }
    this.firstWrite ??= writes[0];
    this.lastWrite = writes[writes.length - 1];
    this.count += writes.length;
  }

  get first(): string | null {
    return this.firstWrite?.columns.igsn ?? null;
  }

  get last(): string | null {
    return this.lastWrite?.columns.igsn ?? null;
  }

  /** The object type every inserted sample has, if they all have the same one. */
  onlyObjectTypeId(): number | undefined {
    return this.objectTypeIds.size === 1 ? [...this.objectTypeIds][0] : undefined;
  }

  /** The registry code every inserted sample has, if they all have the same one. */
  onlyRegistryCode(): string | undefined {
    return this.codes.size === 1 ? [...this.codes][0] : undefined;
  }
}
