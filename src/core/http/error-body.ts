import { ApiProperty } from '@nestjs/swagger';

/** Field path → messages, e.g. `{"collectors.0.individual.label": ["must be at most 200 characters"]}`. */
export type FieldErrors = Record<string, string[]>;

/** The one error body of the API: every failure, from any layer, is answered with this shape. */
export class ErrorBody {
  @ApiProperty({ example: 'Validation failed.' })
  message: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: { type: 'array', items: { type: 'string' } },
    example: { latitude: ['latitude must not be greater than 90'] },
    description: 'Field path to messages; empty when the error concerns no particular field.',
  })
  errors: FieldErrors;
}

export function errorBody(message: string, errors: FieldErrors = {}): ErrorBody {
  return { message, errors };
}
