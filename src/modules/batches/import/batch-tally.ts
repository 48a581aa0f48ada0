import { ResolvedWrite } from '../../samples';

/** The new samples a batch has inserted so far: how many, the first and last IGSN, what they share. */
export class BatchTally {
  count = 0;
  first: string | null = null;
  last: string | null = null;
  private readonly objectTypeIds = new Set<number | undefined>();
  private readonly codes = new Set<string | undefined>();

  /** One inserted chunk, in file order. */
  add(writes: ResolvedWrite[]): void {
    if (!writes.length) return;
    for (const write of writes) {
      // New batch rows always resolve an object type (only reserved samples have none).
      this.objectTypeIds.add(write.columns.objectTypeId ?? undefined);
      this.codes.add(write.columns.registryCode);
    }
    this.first ??= writes[0].columns.igsn ?? null;
    this.last = writes[writes.length - 1].columns.igsn ?? null;
    this.count += writes.length;
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
