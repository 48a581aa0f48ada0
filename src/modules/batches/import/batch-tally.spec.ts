import { ResolvedWrite } from '../../samples';
import { BatchTally } from './batch-tally';

const write = (igsn: string, objectTypeId: number, registryCode: string): ResolvedWrite => ({
  columns: { igsn, objectTypeId, registryCode },
});

describe('BatchTally', () => {
  it('counts the inserted chunks and keeps the first and last IGSN in file order', () => {
    const tally = new BatchTally();
    tally.add([write('IEAAA0001', 1, 'IEAAA'), write('IEAAA0002', 1, 'IEAAA')]);
    tally.add([]);
    tally.add([write('IEAAA0003', 1, 'IEAAA')]);
    expect({ count: tally.count, first: tally.first, last: tally.last }).toEqual({
      count: 3,
      first: 'IEAAA0001',
      last: 'IEAAA0003',
    });
    expect(tally.onlyObjectTypeId()).toBe(1);
    expect(tally.onlyRegistryCode()).toBe('IEAAA');
  });

  it('reads the first and last IGSN when asked: a chunk is added before its IGSNs are minted', () => {
    const tally = new BatchTally();
    const chunk = [write('', 1, 'IEAAA'), write('', 1, 'IEAAA')];
    chunk.forEach((minted) => delete minted.columns.igsn);
    tally.add(chunk);
    expect([tally.first, tally.last]).toEqual([null, null]);
    chunk.forEach((minted, index) => (minted.columns.igsn = `IEAAA000${index + 1}`));
    expect([tally.first, tally.last]).toEqual(['IEAAA0001', 'IEAAA0002']);
  });

  it('names no shared object type or code once the samples differ', () => {
    const tally = new BatchTally();
    tally.add([write('IEAAA0001', 1, 'IEAAA'), write('IEBBB0001', 2, 'IEBBB')]);
    expect(tally.onlyObjectTypeId()).toBeUndefined();
    expect(tally.onlyRegistryCode()).toBeUndefined();
  });

  it('is empty before any insert', () => {
    const tally = new BatchTally();
    expect([tally.count, tally.first, tally.last, tally.onlyRegistryCode()]).toEqual([0, null, null, undefined]);
  });
});
