import { uploadFilename } from './upload-filename';

const latin1View = (name: string) => Buffer.from(name, 'utf8').toString('latin1');

describe('uploadFilename', () => {
  it('decodes UTF-8 bytes that busboy read as latin1', () => {
    expect(uploadFilename(latin1View('Proben-Übersicht_東京.xlsx'))).toBe('Proben-Übersicht_東京.xlsx');
    expect(uploadFilename(latin1View('😀 cores.xlsx'))).toBe('😀 cores.xlsx');
  });

  it('keeps a name already decoded from filename*=UTF-8 and plain ASCII names', () => {
    expect(uploadFilename('Proben-Übersicht_東京.xlsx')).toBe('Proben-Übersicht_東京.xlsx');
    expect(uploadFilename('cores 2024.xlsx')).toBe('cores 2024.xlsx');
  });

  it('keeps a latin1 name that is not valid UTF-8', () => {
    expect(uploadFilename('Übersicht.xlsx')).toBe('Übersicht.xlsx');
  });

  it('replaces control characters and cuts at 255 characters without splitting one', () => {
    expect(uploadFilename('a\r\nb\u0000.xlsx')).toBe('a__b_.xlsx');
    const long = uploadFilename(latin1View('東'.repeat(300)));
    expect(Array.from(long)).toHaveLength(255);
    expect(new Set(long)).toEqual(new Set(['東']));
  });
});
