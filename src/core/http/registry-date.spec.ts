import { parseRegistryDate } from './registry-date';

describe('parseRegistryDate (the one date rule of sample writes)', () => {
  it.each([
    ['2024', '2024-01-01T00:00:00.000Z'],
    ['2024-06', '2024-06-01T00:00:00.000Z'],
    ['2024-06-01', '2024-06-01T00:00:00.000Z'],
    ['2024-06-01T08:30', '2024-06-01T08:30:00.000Z'],
    ['2024-06-01T08:30:15.5Z', '2024-06-01T08:30:15.500Z'],
    ['2024-06-01T08:30:00+02:00', '2024-06-01T06:30:00.000Z'],
    ['0099-03-01', '0099-03-01T00:00:00.000Z'],
  ])('reads %s as %s', (text, iso) => {
    expect(parseRegistryDate(text)?.toISOString()).toBe(iso);
  });

  it.each([
    '2024-W05',
    '2024-123',
    '20240601',
    '2024-06-01T12',
    '-2024-06-01',
    '+002024-06-01',
    '2024-02-30',
    '0000-01-01',
    '2024-13',
    '2024-06-01T24:00',
    '2024-06-01T08:30+24:00',
    '',
  ])('refuses %p', (text) => {
    expect(parseRegistryDate(text)).toBeUndefined();
  });
});
