import { plainToInstance } from 'class-transformer';
import { COMPILED_TRANSFORM_OPTIONS, compiledPlainToInstance } from '../../src/core/http/compiled-plain-to-instance';

/**
 * What an instance is, as a comparable value: every object's class and own keys in order (an
 * unset field included), arrays, sets, dates and buffers by kind — so two results are equal only if
 * class-transformer's and the compiled walk built the same thing.
 */
export function shapeOf(value: unknown): unknown {
  if (value === undefined) return { undefined: true };
  if (typeof value === 'number' && Number.isNaN(value)) return { nan: true };
  if (value === null || typeof value !== 'object') return { [typeof value]: value };
  if (value instanceof Date) return { date: value.getTime() };
  if (Buffer.isBuffer(value)) return { buffer: value.toString('hex') };
  if (Array.isArray(value)) return { array: value.map(shapeOf) };
  if (value instanceof Set) return { set: [...value].map(shapeOf) };
  const constructor = (value as { constructor?: { name?: string } }).constructor;
  return {
    class: constructor?.name ?? '(none)',
    keys: Object.keys(value).map((key) => [key, shapeOf((value as Record<string, unknown>)[key])]),
  };
}

/** class-transformer's answer and the compiled one, for a fresh copy of the same plain value each. */
export function bothTransforms(cls: new () => object, plain: () => unknown): { library: unknown; compiled: unknown } {
  return {
    library: shapeOf(plainToInstance(cls, plain(), COMPILED_TRANSFORM_OPTIONS)),
    compiled: shapeOf(compiledPlainToInstance(cls, plain())),
  };
}
