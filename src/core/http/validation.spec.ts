import { ValidationError } from 'class-validator';
import { flattenValidationErrors } from './validation';

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
