import { readExportPayload } from './sample-export-payload';

describe('export job payload', () => {
  const payload = {
    format: 'csv',
    user_id: 7,
    query: {
      scope: 'personal',
      registry_code: 'IEABC',
      parent: 'IEABC0001',
      collector: '0000-0002-1825-0097',
      bbox: '-11,51,-5,56',
      sampling_date_from: '2020',
      sampling_date_to: '2021',
      created_from: '2024-01-01',
      created_to: '2024-12-31',
    },
  };

  it('keeps every search filter', () => {
    expect(readExportPayload(payload)).toEqual(payload);
  });

  it('refuses a filter it does not know rather than exporting more than was asked', () => {
    expect(readExportPayload({ ...payload, query: { ...payload.query, material: 'basalt' } })).toBeUndefined();
  });
});
