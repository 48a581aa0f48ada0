import { ClassTransformOptions, TransformationType, plainToInstance } from 'class-transformer';
import type { MetadataStorage } from 'class-transformer/types/MetadataStorage';
import type { TransformMetadata, TypeMetadata } from 'class-transformer/types/interfaces';

/**
 * class-transformer's `plainToInstance(cls, plain, { enableImplicitConversion: false })`, with the
 * decorators' metadata read once per class and property instead of on every object.
 *
 * Why: a batch turns tens of thousands of rows of the same few classes into DTOs, and the library
 * looks up every key's expose, exclude, type and transform metadata (each a walk over the class's
 * ancestors that allocates arrays) on every object — 12 % of a batch's worker CPU. The walk below is
 * TransformOperationExecutor.transform of class-transformer 0.5.1 for PLAIN_TO_CLASS with its default
 * options (no groups, versions, prefixes, circular check or default values; unset fields exposed),
 * in the same order, so the same instance comes out: same keys in the same order, same classes, the
 * `@Transform` functions called with the same arguments after the nested transform.
 *
 * What it does not mirror (a class-level `@Expose`/`@Exclude` strategy, any `@Expose`, discriminated
 * `@Type`s, Maps, promises) makes it hand the whole call to class-transformer itself, so the answer
 * is always class-transformer's. The `@Transform` functions are then called again on the original
 * plain value: they must not change it (none of the application's does).
 */

// The storage the decorators write to; class-transformer exports it only from its own module.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const storage = (require('class-transformer/cjs/storage') as { defaultMetadataStorage: MetadataStorage })
  .defaultMetadataStorage;

const PLAIN_TO_CLASS = TransformationType.PLAIN_TO_CLASS;

/** The only options compiled: those of validateBuiltBody and the validation pipe. */
export const COMPILED_TRANSFORM_OPTIONS: ClassTransformOptions = Object.freeze({ enableImplicitConversion: false });

/** What the executor hands `@Transform` functions as `options`: the library's defaults merged with ours. */
const EXECUTOR_OPTIONS: ClassTransformOptions = Object.freeze({
  enableCircularCheck: false,
  enableImplicitConversion: false,
  excludeExtraneousValues: false,
  excludePrefixes: undefined,
  exposeDefaultValues: false,
  exposeUnsetFields: true,
  groups: undefined,
  ignoreDecorators: false,
  strategy: undefined,
  targetMaps: undefined,
  version: undefined,
});

/** Something the walk does not mirror: the call goes to class-transformer. */
class NotCompiled extends Error {}

type Constructor = new () => object;

interface KeyPlan {
  excluded: boolean;
  type?: TypeMetadata;
  transforms: TransformMetadata[];
  /** The class's prototype has the key as a method or a getter without setter: never assigned. */
  onPrototype: boolean;
}

interface ClassPlan {
  target: Constructor | undefined;
  prototype: object;
  excluded: Set<string>;
  keys: Map<string, KeyPlan>;
}

/** Past this many distinct keys a class's plans are no longer kept (keys come from request bodies). */
const MAX_KEPT_KEYS = 256;

const plans = new Map<Constructor | undefined, ClassPlan>();

function planOf(target: Constructor | undefined): ClassPlan {
  let plan = plans.get(target);
  if (plan) return plan;
  if (target) {
    // getKeys: a class-level strategy, or any exposed property (renames, groups), is not compiled.
    if (storage.getStrategy(target) !== 'none' || storage.getExposedMetadatas(target).length) throw new NotCompiled();
  }
  plan = {
    target,
    prototype: (target ?? Object).prototype as object,
    excluded: new Set(target ? storage.getExcludedProperties(target, PLAIN_TO_CLASS) : []),
    keys: new Map(),
  };
  plans.set(target, plan);
  return plan;
}

function keyPlanOf(plan: ClassPlan, key: string): KeyPlan {
  const kept = plan.keys.get(key);
  if (kept) return kept;
  const { target } = plan;
  const type = target ? storage.findTypeMetadata(target, key) : undefined;
  if (type?.options?.discriminator || type?.reflectedType === Map) throw new NotCompiled();
  const descriptor = Object.getOwnPropertyDescriptor(plan.prototype, key);
  const keyPlan: KeyPlan = {
    excluded: plan.excluded.has(key),
    type,
    transforms: target
      ? storage
          .findTransformMetadatas(target, key, PLAIN_TO_CLASS)
          .filter((metadata) => !metadata.options?.groups?.length)
      : [],
    onPrototype: !!descriptor && !descriptor.set,
  };
  if (plan.keys.size < MAX_KEPT_KEYS) plan.keys.set(key, keyPlan);
  return keyPlan;
}

function instantiateArrayType(arrayType: new () => unknown): unknown[] | Set<unknown> {
  const array = new arrayType();
  return array instanceof Set || (typeof array === 'object' && array !== null && 'push' in array)
    ? (array as unknown[] | Set<unknown>)
    : [];
}

function isThenable(value: unknown): boolean {
  return value !== null && typeof value === 'object' && typeof (value as { then?: unknown }).then === 'function';
}

/** TransformOperationExecutor.transform (PLAIN_TO_CLASS, no source object). */
function transform(value: unknown, targetType: unknown, arrayType: unknown, isMap: boolean): unknown {
  if (Array.isArray(value) || value instanceof Set) {
    if (targetType !== undefined && typeof targetType !== 'function') throw new NotCompiled();
    const copy = arrayType ? instantiateArrayType(arrayType as new () => unknown) : [];
    value.forEach((item: unknown) => {
      const transformed = transform(item, targetType, undefined, item instanceof Map);
      if (copy instanceof Set) copy.add(transformed);
      else copy.push(transformed);
    });
    return copy;
  }
  if (isMap || value instanceof Map) throw new NotCompiled();
  // eslint-disable-next-line @typescript-eslint/no-base-to-string -- String(value), as class-transformer does
  if (targetType === String) return value === null || value === undefined ? value : String(value);
  if (targetType === Number) return value === null || value === undefined ? value : Number(value);
  if (targetType === Boolean) return value === null || value === undefined ? value : Boolean(value);
  if (targetType === Date || value instanceof Date) {
    if (value instanceof Date) return new Date(value.valueOf());
    return value === null || value === undefined ? value : new Date(value as string);
  }
  if (targetType === Buffer || value instanceof Buffer) {
    return value === null || value === undefined ? value : Buffer.from(value as Buffer);
  }
  if (isThenable(value)) throw new NotCompiled();
  if (typeof value !== 'object' || value === null) return value;
  let target = targetType as Constructor | undefined;
  const { constructor } = value as { constructor?: unknown };
  // An object whose constructor is Array but is no array is an "array bomb": class-transformer keeps it plain.
  if (!target && constructor !== Object && !(!Array.isArray(value) && constructor === Array)) {
    target = constructor as Constructor | undefined;
  }
  return transformObject(value as Record<string, unknown>, target);
}

function transformObject(value: Record<string, unknown>, target: Constructor | undefined): object {
  const plan = planOf(target);
  const instance = (target ? new target() : {}) as Record<string, unknown>;
  const ownPrototype = instance.constructor === (target ?? Object);
  for (const key of Object.keys(value)) {
    if (key === '__proto__' || key === 'constructor') continue;
    const keyPlan = keyPlanOf(plan, key);
    if (keyPlan.excluded) continue;
    const item = value[key];
    let type: unknown;
    if (keyPlan.type) {
      const { typeFunction, reflectedType } = keyPlan.type as {
        typeFunction?: TypeMetadata['typeFunction'];
        reflectedType: unknown;
      };
      type = typeFunction ? typeFunction({ newObject: instance, object: value, property: key }) : reflectedType;
    }
    const arrayType: unknown = Array.isArray(item) && target ? keyPlan.type?.reflectedType : undefined;
    if (instanceSkips(instance, key, ownPrototype ? keyPlan.onPrototype : undefined)) continue;
    let result = transform(item, type, arrayType, item instanceof Map);
    for (const metadata of keyPlan.transforms) {
      result = metadata.transformFn({
        value: result,
        key,
        obj: value,
        type: PLAIN_TO_CLASS,
        options: EXECUTOR_OPTIONS,
      });
    }
    instance[key] = result;
  }
  return instance;
}

/** "If newValue is a source object that has method that match newKeyName then skip it." */
function instanceSkips(instance: Record<string, unknown>, key: string, onPrototype: boolean | undefined): boolean {
  const prototype = (instance.constructor as { prototype?: object } | undefined)?.prototype;
  if (prototype) {
    const skipped = onPrototype ?? prototypeSkips(prototype, key);
    if (skipped || instance[key] instanceof Function) return true;
  }
  return false;
}

function prototypeSkips(prototype: object, key: string): boolean {
  const descriptor = Object.getOwnPropertyDescriptor(prototype, key);
  return !!descriptor && !descriptor.set;
}

/**
 * `plainToInstance(cls, plain, COMPILED_TRANSFORM_OPTIONS)`; other options go to class-transformer
 * unchanged (the validation pipe's transformer package).
 */
export function compiledPlainToInstance<T>(
  cls: new () => T,
  plain: unknown,
  options: ClassTransformOptions = COMPILED_TRANSFORM_OPTIONS,
): T {
  if (!sameOptions(options)) return plainToInstance(cls, plain, options);
  try {
    return transform(plain, cls, undefined, false) as T;
  } catch (error) {
    if (!(error instanceof NotCompiled)) throw error;
    return plainToInstance(cls, plain, options);
  }
}

function sameOptions(options: ClassTransformOptions): boolean {
  if (options === COMPILED_TRANSFORM_OPTIONS) return true;
  const keys = Object.keys(options).filter((key) => options[key as keyof ClassTransformOptions] !== undefined);
  return keys.every((key) => key === 'enableImplicitConversion') && options.enableImplicitConversion !== true;
}
