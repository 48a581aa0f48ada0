import { hasReplayed, parseLsn } from './lsn';

describe('WAL positions', () => {
  it('orders positions by value, not by text', () => {
    expect(parseLsn('10/0') > parseLsn('9/FFFFFFFF')).toBe(true);
    expect(parseLsn('0/16B3748')).toBe(0x16b3748n);
    expect(parseLsn('1/0')).toBe(1n << 32n);
  });

  it('refuses what is not a position', () => {
    expect(() => parseLsn('16B3748')).toThrow('Not a WAL position');
    expect(() => parseLsn('1/2/3')).toThrow('Not a WAL position');
  });

  it('a standby has replayed a position when it is at or past it', () => {
    expect(hasReplayed(parseLsn('0/200'), parseLsn('0/200'))).toBe(true);
    expect(hasReplayed(parseLsn('0/1FF'), parseLsn('0/200'))).toBe(false);
  });
});
