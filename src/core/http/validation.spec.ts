import { IsInt, IsString, ValidationError, getMetadataStorage } from 'class-validator';
import { ApiError } from './api-error';
import { flattenValidationErrors, validateBuiltBody } from './validation';
import { memoizeValidationMetadata } from './validation-metadata-cache';

function node(
  property: string,
  constraints?: Record<string, string>,
  children: ValidationError[] = [],
): ValidationError {
  const error = new ValidationError();
  error.property = property;
  error.constraints = constraints;
  error.children = children;
  return error;
}

describe('flattenValidationErrors', () => {
  it('joins nested properties and list indexes into dotted paths', () => {
    const errors = [
      node('latitude', { max: 'latitude must not be greater than 90' }),
      node('collectors', undefined, [
        node('0', undefined, [node('individual', undefined, [node('label', { maxLength: 'too long' })])]),
      ]),
      node('color', { whitelistValidation: 'property color should not exist' }),
    ];
    expect(flattenValidationErrors(errors)).toEqual({
      latitude: ['latitude must not be greater than 90'],
      'collectors.0.individual.label': ['too long'],
      color: ['This field is not allowed.'],
    });
  });
});

describe('memoizeValidationMetadata', () => {
  it('answers lookups from memory, and forgets them when a rule is added', async () => {
    memoizeValidationMetadata();
    class Probe {
      @IsString()
      label: unknown;
    }
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Probe, '', false, false);
    expect(storage.getTargetValidationMetadatas(Probe, '', false, false)).toBe(first);
    expect(storage.groupByPropertyName(first)).toBe(storage.groupByPropertyName(first));
    expect(
      await validateBuiltBody(Probe, { label: 'x', extra: 1 }).catch((error: ApiError) => error.getResponse()),
    ).toEqual({
      message: 'Validation failed: extra.',
      errors: { extra: ['This field is not allowed.'] },
    });

    IsInt()(Probe.prototype, 'extra'); // a rule registered later must be seen
    expect(storage.getTargetValidationMetadatas(Probe, '', false, false)).toHaveLength(first.length + 1);
    expect(await validateBuiltBody(Probe, { label: 'x', extra: 1 })).toEqual(
      Object.assign(new Probe(), { label: 'x', extra: 1 }),
    );
  });
});
