import { IsInt, IsString, ValidationError } from 'class-validator';
import { ApiError } from './api-error';
import { flattenValidationErrors, validateBuiltBody } from './validation';

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

describe('validateBuiltBody', () => {
  it('refuses fields without rules, and sees a rule registered after a first validation', async () => {
    class Probe {
      @IsString()
      label: unknown;
    }
    expect(
      await validateBuiltBody(Probe, { label: 'x', extra: 1 }).catch((error: ApiError) => error.getResponse()),
    ).toEqual({
      message: 'Validation failed: extra.',
      errors: { extra: ['This field is not allowed.'] },
    });

    IsInt()(Probe.prototype, 'extra');
    expect(await validateBuiltBody(Probe, { label: 'x', extra: 1 })).toEqual(
      Object.assign(new Probe(), { label: 'x', extra: 1 }),
    );
  });
});
