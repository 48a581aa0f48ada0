import { Type } from 'class-transformer';
import { IsOptional, IsString, ValidateNested } from 'class-validator';
import { MaxLength } from './text-length';
import { ApiError } from './api-error';
import { createValidationPipe } from './validation';
import { IgnoresReadOnlyFields } from './read-only-fields';

@IgnoresReadOnlyFields('id', 'can_edit')
class NestedWrite {
  @IsString()
  @MaxLength(5)
  label: string;
}

@IgnoresReadOnlyFields('id', 'can_edit', 'created_by')
class Write {
  @IsString()
  label: string;

  @IsOptional()
  @ValidateNested()
  @Type(() => NestedWrite)
  nested?: NestedWrite;
}

async function validate(body: object): Promise<unknown> {
  try {
    return await createValidationPipe().transform(body, { type: 'body', metatype: Write });
  } catch (error) {
    if (error instanceof ApiError) return error.getResponse();
    throw error;
  }
}

describe('IgnoresReadOnlyFields', () => {
  it('drops the read-only fields a client sends back', async () => {
    const result = await validate({ label: 'a', id: 3, can_edit: true, created_by: 9, nested: { label: 'b', id: 1 } });
    expect(result).toBeInstanceOf(Write);
    expect(JSON.parse(JSON.stringify(result))).toEqual({ label: 'a', nested: { label: 'b' } });
  });

  it('still refuses every other unknown field, by its path', async () => {
    expect(await validate({ label: 'a', colour: 'red', nested: { label: 'b', size: 1 } })).toEqual({
      message: 'Validation failed: colour, nested.size.',
      errors: { colour: ['This field is not allowed.'], 'nested.size': ['This field is not allowed.'] },
    });
  });

  it('still validates the writable fields', async () => {
    expect(await validate({ label: 'a', id: 1, nested: { label: 'too long' } })).toMatchObject({
      errors: { 'nested.label': [expect.any(String)] },
    });
  });
});
