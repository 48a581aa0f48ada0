import { CellValue, SAMPLE_CSV_COLUMNS, csvField, formulaSafe, sampleCells, toCsv } from './csv.serializer';
import { fullSampleDto, minimalSampleDto } from './sample-dto.examples';

/** RFC 4180 reader: records of fields, CRLF line ends, quoted fields with doubled quotes. */
function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let field = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (quoted) {
      if (char === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (char === '"') quoted = false;
      else field += char;
    } else if (char === '"') quoted = true;
    else if (char === ',') {
      record.push(field);
      field = '';
    } else if (char === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += char;
  }
  expect(field).toBe('');
  expect(record).toEqual([]);
  return records;
}

describe('SAMPLE_CSV_COLUMNS', () => {
  it('has one column for every SampleDto field, with unique keys and headers', () => {
    const keys = SAMPLE_CSV_COLUMNS.map((column) => column.key);
    expect([...keys].sort()).toEqual(Object.keys(fullSampleDto()).sort());
    expect(new Set(SAMPLE_CSV_COLUMNS.map((column) => column.header)).size).toBe(SAMPLE_CSV_COLUMNS.length);
  });

  it('flattens nested values to text and keeps numbers and booleans as they are', () => {
    const cells = Object.fromEntries(
      SAMPLE_CSV_COLUMNS.map((column, index) => [column.key, sampleCells(fullSampleDto())[index]]),
    );
    expect(cells).toMatchObject({
      collectors:
        'Marie Tharp, Lamont-Doherty Earth Observatory (Chief scientist); Woods Hole Oceanographic Institution',
      platform: 'R/V Atlantis (Ship)',
      launch_platform: 'Alvin (HOV)',
      current_archive: 'Lamont-Doherty Core Repository',
      original_archive: 'Ship archive',
      related_resources:
        'https://doi.org/10.1594/PANGAEA.123456 (isdocumentedby, Geochemistry); ' +
        'https://example.org/report?a=1&b=2 (not-a-relation, Cruise report); https://example.org/same (IsIdenticalTo)',
      material_types: 'Igneous>Volcanic; Basalt',
      other_names: 'D7-1; Field #12',
      latitude: 41.5,
      elevation: -2500,
      is_draft: false,
      team_owner: 2,
    });
    const empty = Object.fromEntries(
      SAMPLE_CSV_COLUMNS.map((column, index) => [column.key, sampleCells(minimalSampleDto())[index]]),
    );
    expect(empty).toMatchObject({ collectors: null, platform: null, related_resources: null, other_names: null });
  });
});

describe('formulaSafe', () => {
  it.each<[CellValue, CellValue]>([
    ['=HYPERLINK("http://evil.example","x")', '\'=HYPERLINK("http://evil.example","x")'],
    ['+cmd|" /C calc"!A0', '\'+cmd|" /C calc"!A0'],
    ['-2+3', "'-2+3"],
    ['@SUM(A1:A9)', "'@SUM(A1:A9)"],
    ['\t=1+1', "'\t=1+1"],
    ['\r=1+1', "'\r=1+1"],
    ['-', "'-"],
    ['-12.5', '-12.5'],
    ['+3', '+3'],
    ['-1e-5', '-1e-5'],
    ['.5', '.5'],
    ['12.5.1', '12.5.1'],
    ['a=b', 'a=b'],
    [' =1', ' =1'],
    ['', ''],
    [-12.5, -12.5],
    [0, 0],
    [true, true],
    [null, null],
  ])('%j → %j', (value, expected) => {
    expect(formulaSafe(value)).toEqual(expected);
  });
});

describe('csvField', () => {
  it.each<[CellValue, string]>([
    ['plain', 'plain'],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['line\nbreak', '"line\nbreak"'],
    ['cr\rlf', '"cr\rlf"'],
    ['=1+1', "'=1+1"],
    ['=SUM(1,2)', '"\'=SUM(1,2)"'],
    [-12.5, '-12.5'],
    [false, 'false'],
    [null, ''],
    ['é 中文 🪨', 'é 中文 🪨'],
  ])('%j → %s', (value, expected) => {
    expect(csvField(value)).toBe(expected);
  });
});

describe('toCsv', () => {
  it('writes a header row and one CRLF-terminated row per sample that reads back field by field', () => {
    const samples = [fullSampleDto(), minimalSampleDto({ name: '=HYPERLINK("http://evil.example","x")' })];
    const text = toCsv(samples);
    expect(text.endsWith('\r\n')).toBe(true);
    expect(text.replace(/"[^"]*"/g, '').match(/\n/g)).toHaveLength(3); // line ends outside quoted fields
    const [header, full, hostile] = parseCsv(text);
    expect(header).toEqual(SAMPLE_CSV_COLUMNS.map((column) => column.header));
    const row = (record: string[]) => Object.fromEntries(SAMPLE_CSV_COLUMNS.map((c, i) => [c.key, record[i]]));
    expect(row(full)).toMatchObject({
      igsn: '10.5072/IEABC0001',
      name: 'Basalt <A&B> "dredge" 7',
      sample_description: 'Pillow basalt, fresh glass rim.\nSecond line: é ü 中文',
      latitude: '41.5',
      longitude: '-72.8',
      elevation: '-2500',
      collectors:
        'Marie Tharp, Lamont-Doherty Earth Observatory (Chief scientist); Woods Hole Oceanographic Institution',
      is_draft: 'false',
      deactivate_reason: '',
    });
    expect(row(hostile).name).toBe('\'=HYPERLINK("http://evil.example","x")');
    expect(row(hostile).sample_description).toBe('');
  });

  it('writes only the columns asked for', () => {
    const columns = SAMPLE_CSV_COLUMNS.filter((column) => ['igsn', 'latitude'].includes(column.key));
    expect(toCsv([minimalSampleDto({ latitude: -12.5 })], columns)).toBe(
      'IGSN,Latitude (WGS84)\r\n10.5072/IEABC0001,-12.5\r\n',
    );
    expect(toCsv([], columns)).toBe('IGSN,Latitude (WGS84)\r\n');
  });
});
