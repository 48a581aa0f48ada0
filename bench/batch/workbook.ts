import * as XLSX from 'xlsx';

/** The columns of the bench's batch workbooks (the template's usual ones). */
const HEADERS = [
  'Object Type',
  'Sample Name',
  'Other Name(s)',
  'General Material Type',
  'Sample Description',
  'Latitude (WGS84)',
  'Longitude (WGS84)',
  'Elevation',
  'Elevation Unit',
  'Sampling start date',
  'Country',
  'Locality',
  'Collector',
  'Platform Name',
  'Current Archive',
];

/**
 * A Samples sheet of `rows` generated rows named `<tag>-<n>`, under a Metadata sheet naming `code`;
 * with `externalIds`, each row also carries an External Sample ID (as SESAR2 clients' files do).
 */
export function workbook(rows: number, tag: string, code: string, options: { externalIds?: boolean } = {}): Buffer {
  const grid: (string | number)[][] = [options.externalIds ? [...HEADERS, 'External Sample ID'] : HEADERS];
  const types = ['Core', 'Individual sample', 'Thin section', 'Dredge'];
  for (let i = 0; i < rows; i++) {
    grid.push([
      types[i % types.length],
      `${tag}-${i + 1}`,
      `field ${i}; lab ${i % 97}`,
      'Rock',
      `Synthetic sample ${i} for the batch benchmark`,
      -60 + (i % 12000) / 100,
      -170 + (i % 34000) / 100,
      (i % 3000) - 500,
      'meters',
      `2024-${String((i % 12) + 1).padStart(2, '0')}-15`,
      ['United States', 'Canada', 'France', 'Japan'][i % 4],
      `Locality ${i % 500}`,
      ['Marie Tharp', 'Bruce Heezen', 'Inge Lehmann'][i % 3],
      ['R/V Atlantis', 'JOIDES Resolution'][i % 2],
      'Lamont-Doherty Core Repository',
      ...(options.externalIds ? [`${tag}-ext-${i + 1}`] : []),
    ]);
  }
  const book = XLSX.utils.book_new();
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet([['registry_code', code]]), 'Metadata');
  XLSX.utils.book_append_sheet(book, XLSX.utils.aoa_to_sheet(grid), 'Samples');
  return XLSX.write(book, { type: 'buffer', bookType: 'xlsx', compression: true }) as Buffer;
}
