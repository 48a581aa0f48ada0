import { getMetadataStorage } from 'class-validator';
import type { ValidationMetadata } from 'class-validator/types/metadata/ValidationMetadata';

type Rules = ValidationMetadata[];
type RulesByProperty = Record<string, Rules>;

const REMEMBERED = Symbol('validationRulesRemembered');

/**
 * class-validator looks a class's rules up afresh on every `validate()` and for every nested
 * object: it filters the class's rules and tests the class against every other validated class
 * for inheritance, then groups the rules by property. That was about a fifth of the worker's CPU
 * on a 50,000-row batch, and every request body pays it too. The rules are declared as the classes
 * load, so each class's answer is remembered until a rule is added (a class loaded later forgets
 * them all). Calls that name validation groups (we use none) are passed through.
 */
export function rememberValidationRules(): void {
  const storage = getMetadataStorage() as ReturnType<typeof getMetadataStorage> & { [REMEMBERED]?: true };
  if (storage[REMEMBERED]) return;
  storage[REMEMBERED] = true;
  const lookUp = storage.getTargetValidationMetadatas.bind(storage);
  const group = storage.groupByPropertyName.bind(storage);
  let rulesOf = new Map<unknown, Map<string, Rules>>();
  let groupedRules = new WeakMap<Rules, RulesByProperty>();
  const forget = () => {
    rulesOf = new Map();
    groupedRules = new WeakMap();
  };

  const addValidationSchema = storage.addValidationSchema.bind(storage);
  const addValidationMetadata = storage.addValidationMetadata.bind(storage);
  const addConstraintMetadata = storage.addConstraintMetadata.bind(storage);
  storage.addValidationSchema = (schema) => {
    forget();
    addValidationSchema(schema);
  };
  storage.addValidationMetadata = (metadata) => {
    forget();
    addValidationMetadata(metadata);
  };
  storage.addConstraintMetadata = (metadata) => {
    forget();
    addConstraintMetadata(metadata);
  };

  storage.getTargetValidationMetadatas = (target, schema, always, strictGroups, groups) => {
    if (groups?.length) return lookUp(target, schema, always, strictGroups, groups);
    const options = `${String(schema)}\u0000${always}\u0000${strictGroups}`;
    let byOptions = rulesOf.get(target);
    if (!byOptions) rulesOf.set(target, (byOptions = new Map<string, Rules>()));
    let rules = byOptions.get(options);
    if (!rules) byOptions.set(options, (rules = lookUp(target, schema, always, strictGroups, groups)));
    return rules;
  };
  storage.groupByPropertyName = (rules) => {
    let grouped = groupedRules.get(rules);
    if (!grouped) groupedRules.set(rules, (grouped = group(rules)));
    return grouped;
  };
}
