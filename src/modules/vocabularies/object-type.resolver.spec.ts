import { ApiError } from '../../core/http/api-error';
import { ObjectTypeResolver, normalisePath } from './object-type.resolver';
import { VocabularyRepository } from './vocabulary.repository';

describe('ObjectTypeResolver', () => {
  // Refusals happen before any query: a repository that fails on use proves it.
  const noDatabase = (): never => {
    throw new Error('no database in unit tests');
  };
  const resolver = new ObjectTypeResolver({
    objectTypeByPath: noDatabase,
    objectTypeById: noDatabase,
    findByLabel: noDatabase,
  } as unknown as VocabularyRepository);

  it.each([42, '42', ' 7 '])('refuses the legacy numeric id %p, pointing to the leaf label', async (value) => {
    const error = await resolver.resolve(value).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).getResponse()).toEqual({
      message:
        'Invalid object_type: numeric object type ids are not accepted; use the leaf label of the object type, e.g. "Core".',
      errors: {
        object_type: ['numeric object type ids are not accepted; use the leaf label of the object type, e.g. "Core"'],
      },
    });
  });

  it.each([null, undefined, '', '  ', { label: 'Core' }])('refuses %p, naming the given field', async (value) => {
    const error = await resolver.resolve(value, { field: 'samples.2.object_type' }).catch((e: unknown) => e);
    expect((error as ApiError).getStatus()).toBe(400);
    expect(Object.keys((error as ApiError).fieldErrors)).toEqual(['samples.2.object_type']);
  });

  it('normalises the spacing around path separators', () => {
    expect(normalisePath(' Analytical preparations>Sectioned specimen >  Thin section ')).toBe(
      'Analytical preparations > Sectioned specimen > Thin section',
    );
  });
});
