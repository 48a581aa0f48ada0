import { ValidationPipe } from '@nestjs/common';
import { ClassTransformOptions, classToPlain } from 'class-transformer';
import { ValidationError, ValidatorOptions, getMetadataStorage, validate } from 'class-validator';
import { ApiError } from './api-error';
import { FieldErrors } from './error-body';
import { passesValidation } from './validation-pass-check';
import { COMPILED_TRANSFORM_OPTIONS, compiledPlainToInstance } from './compiled-plain-to-instance';

/** Turns class-validator's error tree into `{ "collectors.0.individual.label": [...] }`. */
export function flattenValidationErrors(errors: ValidationError[], parentPath = ''): FieldErrors {
  const result: FieldErrors = {};
  for (const error of errors) {
    const path = parentPath ? `${parentPath}.${error.property}` : error.property;
    if (error.constraints) {
      result[path] = Object.entries(error.constraints).map(([name, message]) =>
        name === 'whitelistValidation' ? 'This field is not allowed.' : message,
      );
    }
    if (error.children?.length) Object.assign(result, flattenValidationErrors(error.children, path));
  }
  return result;
}

export function validationFailed(errors: ValidationError[]): ApiError {
  const fieldErrors = flattenValidationErrors(errors);
  const fields = Object.keys(fieldErrors);
  const message = fields.length ? `Validation failed: ${fields.join(', ')}.` : 'Validation failed.';
  return ApiError.badRequest(message, fieldErrors);
}

const TRANSFORM_OPTIONS: ClassTransformOptions = COMPILED_TRANSFORM_OPTIONS;
/** What the pipe hands class-validator (it turns forbidUnknownValues off unless told otherwise). */
const VALIDATOR_OPTIONS: ValidatorOptions = {
  forbidUnknownValues: false,
  whitelist: true,
  forbidNonWhitelisted: true,
  validationError: { target: false, value: false },
};

/** Does the pass check answer for these options (VALIDATOR_OPTIONS, whatever the error shape)? */
function passCheckApplies(options: ValidatorOptions = {}): boolean {
  const { validationError: _shape, ...expected } = VALIDATOR_OPTIONS as Record<string, unknown>;
  const given = options as Record<string, unknown>;
  return Object.keys({ ...expected, ...given }).every(
    (key) => key === 'validationError' || given[key] === expected[key],
  );
}

type ValidationMetadatas = ReturnType<ReturnType<typeof getMetadataStorage>['getTargetValidationMetadatas']>;

/**
 * The pipe reads each class's rules (its binary-value check) on every request: here they are kept
 * per class for the pipe's options (rules are declared when a class is defined; a class defined
 * later is a new key).
 */
function classValidatorWithKeptRules() {
  const storage = getMetadataStorage();
  const kept = new Map<unknown, ValidationMetadatas>();
  const rules: Pick<typeof storage, 'getTargetValidationMetadatas'> = {
    getTargetValidationMetadatas(target, schema, always, strictGroups, groups) {
      if (schema || always || strictGroups || groups?.length)
        return storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
      let metadatas = kept.get(target);
      if (!metadatas) {
        metadatas = storage.getTargetValidationMetadatas(target, schema, always, strictGroups, groups);
        kept.set(target, metadatas);
      }
      return metadatas;
    },
  };
  return { validate, getMetadataStorage: () => rules };
}

/**
 * Nest's pipe, with a DTO the compiled pass check accepts given no error without class-validator's
 * walk; any other is validated by class-validator, which words the errors. (The transformer and
 * validator packages a pipe is given are shared by every ValidationPipe of the process — the last
 * one built wins —; the pass check is this pipe's own.)
 */
class RegistryValidationPipe extends ValidationPipe {
  protected override validate(
    object: object,
    options?: ValidatorOptions,
  ): ValidationError[] | Promise<ValidationError[]> {
    if (passCheckApplies(options) && passesValidation(object)) return [];
    return super.validate(object, options);
  }
}

/** The global pipe: unknown fields rejected, payloads transformed into DTO instances. */
export function createValidationPipe(): ValidationPipe {
  return new RegistryValidationPipe({
    ...VALIDATOR_OPTIONS,
    transform: true,
    transformOptions: TRANSFORM_OPTIONS,
    // class-transformer's own walk, with each class's decorators read once (compiled-plain-to-instance.ts).
    transformerPackage: { plainToInstance: compiledPlainToInstance, classToPlain },
    validatorPackage: classValidatorWithKeptRules(),
    exceptionFactory: validationFailed,
  });
}

/**
 * The pipe's check of a body this process built itself (a batch row, tens of thousands a job):
 * the same class-transformer and class-validator calls with the same options, so the same DTO or
 * the same error, without the pipe's walks that guard request bodies against what only a parser
 * produces (binary values, sparse arrays, prototype keys) — about a third of its cost. A DTO the
 * compiled pass check accepts skips class-validator (its per-object rule lookups and error objects
 * are most of a row's check); any other goes through class-validator, which words the errors.
 */
export async function validateBuiltBody<T extends object>(
  metatype: new () => T,
  body: Record<string, unknown>,
): Promise<T> {
  const dto = compiledPlainToInstance(metatype, body, TRANSFORM_OPTIONS);
  if (passesValidation(dto)) return dto;
  const errors = await validate(dto, VALIDATOR_OPTIONS);
  if (errors.length) throw validationFailed(errors);
  return dto;
}
