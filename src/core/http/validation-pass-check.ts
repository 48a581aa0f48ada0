import { MetadataStorage, ValidationArguments, getMetadataStorage } from 'class-validator';

/**
 * Does an object pass class-validator with the options of validateBuiltBody (whitelist,
 * forbidNonWhitelisted, forbidUnknownValues off, no groups, no skip options)? Answers only yes or
 * "ask class-validator": never an error of its own, so a refused row's errors and messages are
 * class-validator's, unchanged.
 *
 * Why: a batch checks tens of thousands of rows of the same few classes, and class-validator looks
 * up each class's rules on every object (a walk over every validated class in the process) and
 * builds an error object for every property, failing or not — most of its cost. Here the rules of a
 * class are read once, through class-validator's public metadata storage (nothing of the library is
 * patched), and a passing object allocates nothing but the validators' arguments.
 *
 * The walk mirrors class-validator 0.14's ValidationExecutor for those options: whitelist (every own
 * key must carry a rule), the conditions (IsOptional, ValidateIf) before the rules, IS_DEFINED
 * rules, custom rules (with `each`), nested objects and arrays of them. A class whose rules use
 * anything else (groups, `always`, promise validation, schemas, asynchronous validators) is not
 * compiled: every object of it is sent to class-validator.
 */
export type PassCheck = (object: object) => boolean;

/** Unsure: the caller asks class-validator. */
class AskClassValidator extends Error {}

type ValidationMetadata = ReturnType<MetadataStorage['getTargetValidationMetadatas']>[number];
type ConstraintMetadata = ReturnType<MetadataStorage['getTargetValidatorConstraints']>[number];

const IS_DEFINED = 'isDefined';
const CUSTOM = 'customValidation';
const NESTED = 'nestedValidation';
const CONDITIONAL = 'conditionalValidation';
const WHITELIST = 'whitelistValidation';

interface CustomRule {
  metadata: ValidationMetadata;
  constraints: ConstraintMetadata[];
  /** The arguments handed to the validators, reused: they run synchronously and keep nothing. */
  args: ValidationArguments;
}

interface PropertyRules {
  name: string;
  conditions: ((object: object, value: unknown) => boolean)[];
  defined: CustomRule[];
  custom: CustomRule[];
  /** How many nested-validation rules the property has (each walks the value once). */
  nested: number;
}

interface ClassRules {
  allowed: Set<string>;
  /** Properties with an IsOptional condition, by name: skipped when null or undefined, as the condition says. */
  optional: Map<string, PropertyRules>;
  /** The other properties: checked on every object. */
  always: PropertyRules[];
}

const IS_OPTIONAL = 'isOptional';

const storage = () => getMetadataStorage();

function customRule(target: new () => unknown, metadata: ValidationMetadata): CustomRule {
  const constraints = storage().getTargetValidatorConstraints(metadata.constraintCls);
  if (constraints.some((constraint) => constraint.async)) throw new AskClassValidator();
  const args: ValidationArguments = {
    targetName: target.name,
    property: metadata.propertyName,
    object: {},
    value: undefined,
    constraints: metadata.constraints,
  };
  return { metadata, constraints, args };
}

/** A class's rules as class-validator reads them for these options, or undefined when not supported. */
function compileClass(target: new () => unknown): ClassRules | undefined {
  const metadatas = storage().getTargetValidationMetadatas(target, '', false, false, undefined);
  const unsupported = (metadata: ValidationMetadata) =>
    typeof metadata.target === 'string' ||
    metadata.always !== undefined ||
    !!metadata.groups?.length ||
    ![IS_DEFINED, CUSTOM, NESTED, CONDITIONAL, WHITELIST].includes(metadata.type);
  if (metadatas.some(unsupported)) return undefined;
  const byName = new Map<string, ValidationMetadata[]>();
  for (const metadata of metadatas)
    byName.set(metadata.propertyName, [...(byName.get(metadata.propertyName) ?? []), metadata]);
  try {
    const compiled: ClassRules = { allowed: new Set(byName.keys()), optional: new Map(), always: [] };
    for (const [name, rules] of byName) {
      const property: PropertyRules = {
        name,
        conditions: rules
          .filter((rule) => rule.type === CONDITIONAL)
          .map((rule) => rule.constraints[0] as (object: object, value: unknown) => boolean),
        defined: rules.filter((rule) => rule.type === IS_DEFINED).map((rule) => customRule(target, rule)),
        custom: rules.filter((rule) => rule.type === CUSTOM).map((rule) => customRule(target, rule)),
        nested: rules.filter((rule) => rule.type === NESTED).length,
      };
      // IsOptional's condition: the property's own value is neither null nor undefined.
      // (Not a property the class's prototype provides: its value would not be among the own keys.)
      const isOptional = rules.some((rule) => rule.type === CONDITIONAL && rule.name === IS_OPTIONAL);
      if (isOptional && !(name in target.prototype)) compiled.optional.set(name, property);
      else compiled.always.push(property);
    }
    return compiled;
  } catch (error) {
    if (error instanceof AskClassValidator) return undefined;
    throw error;
  }
}

function isCollection(value: unknown): value is unknown[] | Set<unknown> | Map<unknown, unknown> {
  return Array.isArray(value) || value instanceof Set || value instanceof Map;
}

/** The rule's validators on one value; `object` is an instance of the class the rule was compiled for. */
function passesRule(rule: CustomRule, object: object, value: unknown): boolean {
  const { args } = rule;
  args.object = object;
  args.value = value;
  const passed = constraintsPass(rule, value);
  args.object = {};
  args.value = undefined;
  return passed;
}

function constraintsPass({ metadata, constraints, args }: CustomRule, value: unknown): boolean {
  for (const constraint of constraints) {
    if (!metadata.each || !isCollection(value)) {
      const valid = constraint.instance.validate(value, args);
      if (valid instanceof Promise) throw new AskClassValidator();
      if (!valid) return false;
      continue;
    }
    const items = value instanceof Map ? [...value.values()] : [...value];
    for (const item of items) {
      const valid = constraint.instance.validate(item, args);
      if (valid instanceof Promise) throw new AskClassValidator();
      if (!valid) return false;
    }
  }
  return true;
}

class PassChecker {
  private readonly classes = new Map<unknown, ClassRules | undefined>();

  passes(object: object): boolean {
    try {
      return this.objectPasses(object);
    } catch (error) {
      if (error instanceof AskClassValidator) return false;
      throw error;
    }
  }

  private rulesOf(target: new () => unknown): ClassRules {
    if (!this.classes.has(target)) this.classes.set(target, compileClass(target));
    const rules = this.classes.get(target);
    if (!rules) throw new AskClassValidator();
    return rules;
  }

  /**
   * ValidationExecutor.execute: whitelist, then each property's rules — an optional property's only
   * when it holds a value (its condition would skip them otherwise), found among the object's own keys.
   */
  private objectPasses(object: object): boolean {
    const rules = this.rulesOf(object.constructor as new () => unknown);
    const values = object as Record<string, unknown>;
    for (const key of Object.keys(object)) {
      const property = rules.optional.get(key);
      if (!property) {
        if (!rules.allowed.has(key)) return false;
        continue;
      }
      const value = values[key];
      if (value === null || value === undefined) continue;
      if (!this.valuePasses(object, value, property)) return false;
    }
    for (const property of rules.always) {
      if (!this.valuePasses(object, values[property.name], property)) return false;
    }
    return true;
  }

  private valuePasses(object: object, value: unknown, property: PropertyRules): boolean {
    if (value instanceof Promise) throw new AskClassValidator();
    return this.propertyPasses(object, value, property);
  }

  /** ValidationExecutor.performValidations with no skip options. */
  private propertyPasses(object: object, value: unknown, property: PropertyRules): boolean {
    for (const condition of property.conditions) if (!condition(object, value)) return true;
    for (const rule of property.defined) if (!passesRule(rule, object, value)) return false;
    for (const rule of property.custom) if (!passesRule(rule, object, value)) return false;
    for (let n = 0; n < property.nested; n++) if (!this.nestedPasses(value)) return false;
    return true;
  }

  /** ValidationExecutor.nestedValidations for one nested rule. */
  private nestedPasses(value: unknown): boolean {
    if (value === undefined) return true;
    if (isCollection(value)) {
      const items = value instanceof Set ? [...value] : value instanceof Map ? [...value.values()] : value;
      return items.every((item) => this.nestedPasses(item));
    }
    if (value instanceof Object) return this.objectPasses(value);
    return false;
  }
}

const checker = new PassChecker();

/** True only when class-validator would find no error in `object` (with validateBuiltBody's options). */
export const passesValidation: PassCheck = (object) => checker.passes(object);
