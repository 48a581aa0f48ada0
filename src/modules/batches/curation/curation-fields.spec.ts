import { BATCH_FIELDS } from '../batch-fields';
import { curationColumns, formatCurationValue } from './curation-fields';

const toDoi = (suffix: string) => `10.5072/${suffix}`;

describe('curation columns', () => {
  it('reads back every column of the batch workbook, with the workbook’s labels, in its order', () => {
    const columns = curationColumns();
    expect(columns.map((column) => column.key)).toEqual(BATCH_FIELDS.map((field) => field.key));
    expect(columns.map((column) => column.label)).toEqual(BATCH_FIELDS.map((field) => field.label));
  });

  it('formats numbers, dates, lists, IGSNs and nested labels as the curation view shows them', () => {
    const byKey = new Map(curationColumns().map((column) => [column.key, column]));
    expect(byKey.get('latitude')?.format).toBe('number');
    expect(byKey.get('sampling_start_date')?.format).toBe('date');
    expect(byKey.get('parent_sample')?.format).toBe('igsn');
    expect(byKey.get('material_types')?.sql).toContain("array_to_string(s.material_types, '; ')");
    expect(byKey.get('platform_label')?.sql).toContain('p.label');
    expect(byKey.get('current_archive')?.sql).toContain('ca.label');
  });

  it('leaves out a workbook field it cannot read rather than guessing a column', () => {
    const columns = curationColumns([
      { key: 'name', label: 'Sample Name', type: 'text', batch: true, help: '' },
      { key: 'colour; DROP TABLE sample', label: 'Colour', type: 'text', batch: true, help: '' },
    ]);
    expect(columns.map((column) => column.key)).toEqual(['name']);
  });
});

describe('formatCurationValue', () => {
  it('prints numbers as JSON does', () => {
    expect(formatCurationValue(40.0001, 'number', toDoi)).toBe('40.0001');
    expect(formatCurationValue(-70, 'number', toDoi)).toBe('-70');
    expect(formatCurationValue(0.00001, 'number', toDoi)).toBe('0.00001');
    expect(formatCurationValue(1e21, 'number', toDoi)).toBe('1e+21');
  });

  it('prints date-times in ISO 8601 UTC and IGSNs in their DOI form', () => {
    expect(formatCurationValue(new Date('2026-05-01T00:00:00Z'), 'date', toDoi)).toBe('2026-05-01T00:00:00.000Z');
    expect(formatCurationValue('IEABC0001', 'igsn', toDoi)).toBe('10.5072/IEABC0001');
  });

  it('turns empty values into null and keeps text as it is', () => {
    expect(formatCurationValue(null, 'text', toDoi)).toBeNull();
    expect(formatCurationValue('', 'text', toDoi)).toBeNull();
    expect(formatCurationValue(undefined, 'number', toDoi)).toBeNull();
    expect(formatCurationValue('Igneous>Plutonic; Rock', 'text', toDoi)).toBe('Igneous>Plutonic; Rock');
  });
});
