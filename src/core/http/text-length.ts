import { ValidateBy, ValidationOptions, buildMessage } from 'class-validator';

/**
 * Text lengths as PostgreSQL counts them for `varchar(n)`: in code points. JavaScript's `length`
 * counts UTF-16 units (an emoji is 2) and class-validator's MaxLength leaves variation selectors
 * out (`"A\uFE0F"` is 1), so `"A\uFE0F" × 200` passed a 255 check and overflowed the column (a 500).
 * Every text limit of the registry — DTOs and the services' own checks — counts with this.
 */
export function textLength(value: string): number {
  let count = 0;
  for (let i = 0; i < value.length; i++) {
    const code = value.charCodeAt(i);
    // A high surrogate followed by a low one is one code point.
    if (code >= 0xd800 && code <= 0xdbff && i + 1 < value.length) {
      const next = value.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) i++;
    }
    count++;
  }
  return count;
}

/**
 * The registry's MaxLength (use it instead of class-validator's; lint refuses the other): at most
 * `max` code points. Same name and message as class-validator's, so OpenAPI's `maxLength` and the
 * error bodies stay as they were.
 */
export function MaxLength(max: number, options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'maxLength',
      constraints: [max],
      validator: {
        validate: (value: unknown) => typeof value === 'string' && textLength(value) <= max,
        defaultMessage: buildMessage(
          (each) => `${each}$property must be shorter than or equal to $constraint1 characters`,
          options,
        ),
      },
    },
    options,
  );
}
