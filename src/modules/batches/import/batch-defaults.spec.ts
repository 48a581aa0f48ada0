import { batchRowDefaults } from './batch-defaults';

describe('batchRowDefaults', () => {
  it('takes the Metadata sheet first, then the upload form', () => {
    expect(
      batchRowDefaults(
        { registry_code: 'IEAAA', object_type: 'Core' },
        { registry_code: 'IEBBB', object_type: 'Dredge' },
      ),
    ).toEqual({ registryCode: 'IEAAA', objectType: 'Core' });
    expect(batchRowDefaults({}, { registry_code: 'IEBBB', object_type: 'Dredge' })).toEqual({
      registryCode: 'IEBBB',
      objectType: 'Dredge',
    });
  });

  it('reads the older sesar_code key when there is no registry_code', () => {
    expect(batchRowDefaults({ sesar_code: 'IEOLD' }, { registry_code: 'IEBBB' }).registryCode).toBe('IEOLD');
  });

  it('treats the template placeholder "Enter per sample" as no object type', () => {
    expect(batchRowDefaults({ object_type: 'Enter per sample' }, { object_type: 'Core' }).objectType).toBe('Core');
    expect(batchRowDefaults({ object_type: 'enter per sample (see list)' }, {}).objectType).toBeUndefined();
  });

  it('ignores form values that are empty or not text', () => {
    expect(batchRowDefaults({}, { registry_code: '', object_type: 3 })).toEqual({
      registryCode: undefined,
      objectType: undefined,
    });
  });
});
