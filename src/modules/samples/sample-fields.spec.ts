import { SAMPLE_CSV_COLUMNS } from '../metadata-formats/csv.serializer';
import { BATCH_FIELDS, batchFieldByHeader } from '../batches/batch-fields';
import { SAMPLE_FIELDS, normalizedHeader, sampleFieldLabel } from './sample-fields';

describe('the field catalogue', () => {
  it('lets no header (key, label or alias) name two columns', () => {
    const columnOf = new Map<string, string>();
    for (const field of SAMPLE_FIELDS) {
      for (const header of new Set([field.key, field.label, ...(field.aliases ?? [])].map(normalizedHeader))) {
        expect([header, columnOf.get(header) ?? field.key]).toEqual([header, field.key]);
        columnOf.set(header, field.key);
      }
    }
  });

  it('gives batch columns a type the workbook reader knows, and help for the template', () => {
    for (const field of BATCH_FIELDS) {
      expect([field.key, ['text', 'number', 'date', 'list', 'igsn'].includes(field.type)]).toEqual([field.key, true]);
      expect(typeof field.help).toBe('string');
    }
  });

  it('is where the CSV columns and the upload get their names', () => {
    for (const column of SAMPLE_CSV_COLUMNS) expect(column.header).toBe(sampleFieldLabel(column.key));
    expect(batchFieldByHeader('Geological  age')?.key).toBe('geologic_age_verbatim');
    expect(batchFieldByHeader('SESAR Code')?.key).toBe('registry_code');
    expect(batchFieldByHeader('Created At')).toBeUndefined(); // exported, not uploaded
    expect(() => sampleFieldLabel('colour')).toThrow('The field catalogue has no column colour.');
  });
});
