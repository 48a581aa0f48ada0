import { BATCH_FIELDS, batchFieldByHeader } from '../batches/batch-fields';
import { SAMPLE_CSV_COLUMNS, sampleCells } from '../metadata-formats/csv.serializer';
import { SampleDto } from '../samples';
import { UNEXPORTED_BATCH_FIELDS, XLSX_DETAILS_COLUMNS, XLSX_SAMPLES_COLUMNS } from './export-columns';
import { readExportPayload } from './sample-export-payload';
import { exportFilename } from './sample-export.builder';
import { normaliseExportQuery } from './sample-exports.service';

const collector = (label: string | null, institution: string | null = null, description: string | null = null) => ({
  id: 1,
  individual: label ? { id: 1, label, fname: null, lname: null, individual_uri: null } : null,
  institution: institution ? { id: 2, label: institution, ror: null } : null,
  description,
});

function sample(overrides: Partial<SampleDto> = {}): SampleDto {
  const base = Object.fromEntries(SAMPLE_CSV_COLUMNS.map((column) => [column.key, null])) as unknown as SampleDto;
  return {
    ...base,
    igsn: '10.5072/IEABC0001',
    name: 'Core 1',
    other_names: [],
    material_types: [],
    collectors: [],
    doi: { state: 'pending', updated_at: null, error: null },
    related_resources: [],
    ...overrides,
  };
}

function cell(columns: typeof XLSX_SAMPLES_COLUMNS, header: string, of: SampleDto) {
  const index = columns.findIndex((column) => column.header === header);
  expect(index).toBeGreaterThanOrEqual(0);
  return sampleCells(of, columns)[index];
}

describe('export columns', () => {
  it('gives every batch field a column, under the label the batch upload reads', () => {
    expect(UNEXPORTED_BATCH_FIELDS).toEqual([]);
    expect(XLSX_SAMPLES_COLUMNS.map((column) => column.header)).toEqual(BATCH_FIELDS.map((field) => field.label));
    for (const column of XLSX_SAMPLES_COLUMNS) expect(batchFieldByHeader(column.header)).toBeDefined();
  });

  it('puts every sample field in the Samples or the Details sheet, and no batch header in Details', () => {
    const shown = new Set([...XLSX_SAMPLES_COLUMNS, ...XLSX_DETAILS_COLUMNS].map((column) => column.key));
    expect(SAMPLE_CSV_COLUMNS.filter((column) => !shown.has(column.key))).toEqual([]);
    expect(XLSX_DETAILS_COLUMNS[0].header).toBe('IGSN');
    const detailHeaders = XLSX_DETAILS_COLUMNS.slice(1).map((column) => column.header);
    expect(detailHeaders).toEqual(expect.arrayContaining(['Metadata Store Status', 'Created At', 'Can Edit']));
    expect(XLSX_SAMPLES_COLUMNS.map((column) => column.header)).not.toContain('Metadata Store Status');
  });

  it('uses the CSV column values for fields both formats have', () => {
    const one = sample({ latitude: -12.5, other_names: ['A', 'B'], sample_description: 'fresh' });
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Latitude (WGS84)', one)).toBe(-12.5);
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Other Name(s)', one)).toBe('A; B');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'IGSN', one)).toBe('10.5072/IEABC0001');
  });

  it('fills Collector (several separated by ;) and Related URL only when re-uploading them loses nothing', () => {
    const single = sample({ collectors: [collector('Marie Tharp', null, 'chief scientist')] });
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Collector', single)).toBe('Marie Tharp');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Collector Detail', single)).toBe('chief scientist');
    const two = sample({ collectors: [collector('Marie Tharp'), collector('Bruce Heezen', null, 'cartographer')] });
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Collector', two)).toBe('Marie Tharp; Bruce Heezen');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Collector Detail', two)).toBe('; cartographer');
    for (const many of [
      sample({ collectors: [collector('Marie Tharp'), collector('Bruce Heezen', null, 'a; b')] }),
      sample({ collectors: [collector('Tharp; Marie')] }),
      sample({ collectors: [collector(null, 'LDEO')] }),
      sample({ collectors: [collector('Marie Tharp', 'LDEO')] }),
    ]) {
      expect(cell(XLSX_SAMPLES_COLUMNS, 'Collector', many)).toBeNull();
      expect(cell(XLSX_DETAILS_COLUMNS, 'Collectors', many)).not.toBeNull();
    }
    const link = { uri: 'https://example.org/a', description: 'photo', relation_type: null };
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Related URL', sample({ related_resources: [link] }))).toBe(link.uri);
    const typed = sample({ related_resources: [{ ...link, relation_type: 'IsDescribedBy' }] });
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Related URL', typed)).toBeNull();
  });

  it('flattens platforms as the batch columns rebuild them', () => {
    const onShip = sample({
      platform: { id: 1, label: 'RV Atlantis', platform_type: 'Ship', description: 'research vessel' },
      launch_platform: { id: 2, label: 'Alvin', launch_type: 'HOV' },
    });
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Platform Name', onShip)).toBe('RV Atlantis');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Platform Type', onShip)).toBe('Ship');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Platform Description', onShip)).toBe('research vessel');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Launch Platform Name', onShip)).toBe('Alvin');
    expect(cell(XLSX_SAMPLES_COLUMNS, 'Launch Type', onShip)).toBe('HOV');
  });
});

describe('export requests', () => {
  it('names files after the snapshot time', () => {
    expect(exportFilename(new Date('2026-11-22T10:00:00.123Z'), 'csv')).toBe('samples-export-2026-11-22T10-00-00Z.csv');
  });

  it('stores the search trimmed, with blanks dropped and the scope explicit', () => {
    expect(normaliseExportQuery({ q: '  basalt ', name: ' ', object_type: 'Core, ,Dredge ', is_draft: false })).toEqual(
      {
        q: 'basalt',
        object_type: 'Core,Dredge',
        scope: 'personal',
        is_draft: 'false',
      },
    );
    expect(normaliseExportQuery({ scope: 'public', country: 'ie' })).toEqual({ scope: 'public', country: 'ie' });
  });

  it('reads back only payloads it wrote', () => {
    const payload = { format: 'csv', query: { q: 'core', scope: 'public' }, user_id: 7 };
    expect(readExportPayload(payload)).toEqual(payload);
    expect(readExportPayload({ ...payload, format: 'pdf' })).toBeUndefined();
    expect(readExportPayload({ ...payload, user_id: '7' })).toBeUndefined();
    expect(readExportPayload({ ...payload, query: { q: 3 } })).toBeUndefined();
  });
});
