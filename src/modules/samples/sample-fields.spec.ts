import { SAMPLE_CSV_COLUMNS } from '../metadata-formats/csv.serializer';
import { BATCH_FIELDS, batchFieldByHeader } from '../batches/batch-fields';
import { AppConfig } from '../../core/config/app-config';
import { IgsnService } from './igsn.service';
import { PLAIN_SAMPLE_FIELDS, SAMPLE_FIELDS, normalizedHeader, sampleFieldLabel } from './sample-fields';
import { flatColumnSql } from './sample-flat-columns';
import { SAMPLE_JSON_SLOTS, SampleMapper, SampleRow } from './sample.mapper';
import { SAMPLE_DETAIL } from './sample.repository';
import { SampleDto } from './dto/sample.dto';

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

  describe('its plain fields (a sample column of the same name)', () => {
    const plainKeys = PLAIN_SAMPLE_FIELDS.map((field) => field.key);

    it('are the fields with a column, a few dozen of them', () => {
      expect(plainKeys).toEqual(SAMPLE_FIELDS.filter((field) => field.column).map((field) => field.key));
      expect(plainKeys).toEqual(
        expect.arrayContaining(['province', 'depth_min', 'material_types', 'sampling_end_date']),
      );
    });

    it('are each selected once by the detail statement', () => {
      const selected = SAMPLE_DETAIL.slice(0, SAMPLE_DETAIL.indexOf('FROM sample s'));
      for (const key of plainKeys) {
        expect([key, selected.split(new RegExp(`\\bs\\.${key}\\b`)).length - 1]).toEqual([key, 1]);
      }
    });

    it('are copied into the sample JSON as stored, dates as ISO 8601, in SampleDto order', () => {
      const row: Record<string, unknown> = {
        id: '42',
        igsn: 'IEABC0001',
        created_at: new Date('2024-01-02T00:00:00Z'),
        updated_at: new Date('2024-01-03T00:00:00Z'),
        related_resources: [],
      };
      const expected: Record<string, unknown> = {};
      for (const field of PLAIN_SAMPLE_FIELDS) {
        const stored = { number: 1.5, integer: 7, list: [`${field.key} 1`], boolean: true }[field.type as string];
        const date = field.type === 'date' || field.type === 'datetime';
        row[field.key] = date ? new Date('2024-06-01T12:00:00Z') : (stored ?? `${field.key} value`);
        expected[field.key] = date ? '2024-06-01T12:00:00.000Z' : row[field.key];
      }
      const mapper = new SampleMapper(
        { toDoi: (suffix: string) => `10.5072/${suffix}` } as IgsnService,
        { datacite: null } as AppConfig,
      );
      const dto = mapper.toDto(row as SampleRow, true);
      expect(dto).toMatchObject(expected);
      expect(Object.keys(dto)).toEqual(Object.keys(new SampleDto()));
      expect(
        SAMPLE_JSON_SLOTS.filter((slot) => slot.plain)
          .map((slot) => slot.key)
          .sort(),
      ).toEqual([...plainKeys].sort());
    });

    it('each have an export column, and batch ones a flat column of their own sample column', () => {
      const exported = new Set<string>(SAMPLE_CSV_COLUMNS.map((column) => column.key));
      for (const field of PLAIN_SAMPLE_FIELDS) {
        expect([field.key, exported.has(field.key)]).toEqual([field.key, true]);
        if (!field.batch) continue;
        const batchField = BATCH_FIELDS.find((batch) => batch.key === field.key);
        expect([field.key, flatColumnSql(field.key, batchField!.type)?.sql]).toEqual([
          field.key,
          expect.stringContaining(`s.${field.key}`),
        ]);
      }
    });
  });
});
