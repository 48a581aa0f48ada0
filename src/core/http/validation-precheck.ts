import { MetadataStorage, ValidationArguments, ValidationTypes, getMetadataStorage } from 'class-validator';

type ValidationMetadata = Parameters<MetadataStorage['addValidationMetadata']>[0];

interface PropertyRules {
  name: string;
  conditions: ValidationMetadata[];
  /** IS_DEFINED and custom rules: each calls its decorator's own constraint. */
  custom: ValidationMetadata[];
  nested: ValidationMetadata[];
}

/** A class's rules grouped once, as class-validator's executor groups them on every call. */
interface ClassRules {
  properties: PropertyRules[];
  allowed: Set<string>;
}

const compiled = new WeakMap<ValidationMetadata[], ClassRules | null>();

/**
 * Whether class-validator would find nothing wrong with `object`, answered without building its
 * error tree: the same rules, read from the same decorators' metadata, checked by the same
 * constraint functions, in the executor's way (whitelist, conditions, custom rules with `each`,
 * nested objects and arrays) — the options of the validation pipe (whitelist, no groups, no
 * skipping). `true` only when that is certain; `false` means "ask class-validator", which also
 * covers what this does not handle (async rules, promises, classes without rules, unknown rule
 * types). So a pass is a pass, and every refusal still gets class-validator's own messages.
 */
export function passesValidation(object: object, targetSchema?: string): boolean {
  const storage = getMetadataStorage();
  const rules = rulesOf(storage, object.constructor, targetSchema);
  if (!rules) return false;
  for (const key of Object.keys(object)) if (!rules.allowed.has(key)) return false;
  const record = object as Record<string, unknown>;
  for (const property of rules.properties) {
    const value = record[property.name];
    if (value instanceof Promise) return false;
    // The executor evaluates every condition (IsOptional, ValidateIf) and skips the property unless all hold.
    let applies = true;
    for (const condition of property.conditions) {
      if (!(condition.constraints[0] as (object: object, value: unknown) => boolean)(object, value)) applies = false;
    }
    if (!applies) continue;
    for (const metadata of property.custom) {
      if (!passesCustom(storage, object, value, metadata)) return false;
    }
    if (value !== undefined && property.nested.length && !passesNested(value, property.nested)) return false;
  }
  return true;
}

function rulesOf(
  storage: MetadataStorage,
  target: Parameters<MetadataStorage['getTargetValidationMetadatas']>[0],
  targetSchema?: string,
): ClassRules | null {
  const metadatas = storage.getTargetValidationMetadatas(target, targetSchema as string, false, false, undefined);
  let rules = compiled.get(metadatas);
  if (rules === undefined) {
    rules = compile(metadatas);
    compiled.set(metadatas, rules);
  }
  return rules;
}

function compile(metadatas: ValidationMetadata[]): ClassRules | null {
  if (!metadatas.length) return null;
  const byName = new Map<string, PropertyRules>();
  const allowed = new Set<string>();
  for (const metadata of metadatas) {
    allowed.add(metadata.propertyName);
    if (metadata.type === ValidationTypes.WHITELIST) continue;
    let property = byName.get(metadata.propertyName);
    if (!property) {
      property = { name: metadata.propertyName, conditions: [], custom: [], nested: [] };
      byName.set(metadata.propertyName, property);
    }
    if (metadata.type === ValidationTypes.CONDITIONAL_VALIDATION) property.conditions.push(metadata);
    else if (metadata.type === ValidationTypes.CUSTOM_VALIDATION || metadata.type === ValidationTypes.IS_DEFINED)
      property.custom.push(metadata);
    else if (metadata.type === ValidationTypes.NESTED_VALIDATION) property.nested.push(metadata);
    else return null; // promise validation or a type this does not know: class-validator decides
  }
  return { properties: [...byName.values()], allowed };
}

function passesCustom(storage: MetadataStorage, object: object, value: unknown, metadata: ValidationMetadata): boolean {
  for (const constraint of storage.getTargetValidatorConstraints(metadata.constraintCls)) {
    const args: ValidationArguments = {
      targetName: object.constructor ? object.constructor.name : (undefined as unknown as string),
      property: metadata.propertyName,
      object,
      value,
      constraints: metadata.constraints,
    };
    const validator = constraint.instance;
    const each = metadata.each && (Array.isArray(value) || value instanceof Set || value instanceof Map);
    const items: unknown[] = each
      ? value instanceof Map
        ? [...value.values()]
        : [...(value as Iterable<unknown>)]
      : [value];
    for (const item of items) {
      const valid: unknown = validator.validate(item, args);
      if (valid !== true && valid !== false) return false; // a promise (async rule) or an odd answer
      if (!valid) return false;
    }
  }
  return true;
}

function passesNested(value: unknown, nested: ValidationMetadata[]): boolean {
  for (const metadata of nested) {
    if (metadata.type !== ValidationTypes.NESTED_VALIDATION) continue;
    if (Array.isArray(value) || value instanceof Set || value instanceof Map) {
      for (const item of value instanceof Set ? [...value] : value instanceof Map ? [...value.values()] : value) {
        // Each item is validated as a property of the list with the same nested rules.
        if (item instanceof Promise) return false;
        if (item !== undefined && !passesNested(item, nested)) return false;
      }
    } else if (value instanceof Object) {
      const schema = typeof metadata.target === 'string' ? metadata.target : metadata.target.name;
      if (!passesValidation(value, schema)) return false;
    } else {
      return false;
    }
  }
  return true;
}
