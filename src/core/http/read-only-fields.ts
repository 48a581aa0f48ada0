import { Exclude } from 'class-transformer';

/**
 * Declares the read-only fields of the resource a write DTO belongs to. The contract lets clients
 * send back what they fetched: these keys are dropped while the body is turned into the DTO (before
 * validation), so they are ignored instead of answered with "This field is not allowed", while
 * every other unknown field is still refused.
 *
 *   @IgnoresReadOnlyFields('id', 'can_edit')
 *   export class InstitutionWriteDto { … }
 */
export function IgnoresReadOnlyFields(...fields: string[]): ClassDecorator {
  return (target) => {
    for (const field of fields) Exclude({ toClassOnly: true })(target.prototype as object, field);
  };
}
