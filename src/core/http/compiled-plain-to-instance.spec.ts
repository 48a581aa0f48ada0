import 'reflect-metadata';
import { Exclude, Expose, Transform, TransformFnParams, Type, plainToInstance } from 'class-transformer';
import { bothTransforms, shapeOf } from '../../../test/support/instance-shape';
import { COMPILED_TRANSFORM_OPTIONS, compiledPlainToInstance } from './compiled-plain-to-instance';

const seen: TransformFnParams[] = [];

class Leaf {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'string' ? value.trim() : value))
  label?: string;

  count = 0;

  get doubled(): number {
    return this.count * 2;
  }

  describe(): string {
    return String(this.label);
  }
}

class Tagged {
  @Exclude({ toClassOnly: true })
  id?: number;

  @Transform((params) => {
    seen.push(params);
    return params.value as unknown;
  })
  note?: unknown;

  @Type(() => Leaf)
  leaf?: Leaf;

  @Type(() => Leaf)
  leaves?: Leaf[];

  @Type(() => Date)
  when?: Date;

  @Type(() => String)
  text?: string;

  @Type(() => Number)
  amount?: number;

  @Type(() => Boolean)
  flag?: boolean;

  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) ? value.map((item: unknown) => (typeof item === 'number' ? { id: item } : item)) : value,
  )
  refs?: unknown[];

  untyped?: unknown;
}

class Child extends Tagged {
  @Transform(({ value }: { value: unknown }) => (typeof value === 'number' ? value + 1 : value))
  extra?: number;
}

@Expose()
class Exposing {
  @Expose({ name: 'other' })
  renamed?: string;
}

const PLAIN_VALUES: unknown[] = [
  undefined,
  null,
  0,
  'text',
  '  padded  ',
  true,
  Number.NaN,
  [],
  [1, 'two', null, [3]],
  {},
  { label: ' x ', count: 3, doubled: 9, describe: 'not a method', bogus: 1 },
  [{ label: 'a' }, { label: 'b', count: 1 }, 'c', 4],
  new Date('2024-03-15T00:00:00Z'),
  '2024-03-15',
  new Set([1, { label: 'in a set' }]),
  Buffer.from('ab'),
];

function bodies(): (() => unknown)[] {
  const keys = ['id', 'note', 'leaf', 'leaves', 'when', 'text', 'amount', 'flag', 'refs', 'untyped', 'extra', 'zzz'];
  const made: (() => unknown)[] = [];
  for (const key of keys) for (const value of PLAIN_VALUES) made.push(() => ({ [key]: structuredClone(value) }));
  made.push(() => JSON.parse('{"__proto__": {"polluted": 1}, "constructor": 2, "toString": 3, "note": 4}'));
  made.push(() => ({ hasOwnProperty: 1, valueOf: 2, untyped: { toString: 'x', isPrototypeOf: 1, kept: 2 } }));
  made.push(() => ({ note: 1, leaf: { label: ' y ' }, leaves: [{ label: 'z' }], refs: [5, { id: 6 }, 'x'], extra: 1 }));
  made.push(() => [{ note: 1 }, { leaf: null }, 3]);
  made.push(() => 'a string');
  made.push(() => null);
  return made;
}

describe('compiledPlainToInstance', () => {
  it.each([Tagged, Child, Leaf])('builds what class-transformer builds: %p', (cls) => {
    for (const plain of bodies()) {
      const { library, compiled } = bothTransforms(cls, plain);
      expect({ plain: shapeOf(plain()), compiled }).toEqual({ plain: shapeOf(plain()), compiled: library });
    }
  });

  it('calls @Transform with the same arguments, after the nested transform', () => {
    const plain = { note: { label: 'n' }, leaf: { label: ' l ' } };
    seen.length = 0;
    plainToInstance(Tagged, structuredClone(plain), COMPILED_TRANSFORM_OPTIONS);
    compiledPlainToInstance(Tagged, structuredClone(plain));
    expect(seen).toHaveLength(2);
    const [library, compiled] = seen.map(({ value, key, obj, type, options }) => ({
      value: shapeOf(value),
      key,
      obj: shapeOf(obj),
      type,
      options,
    }));
    expect(compiled).toEqual(library);
  });

  it('hands what it does not mirror to class-transformer (exposed names, maps, other options)', () => {
    expect(compiledPlainToInstance(Exposing, { other: 'x', renamed: 'y' })).toEqual(
      plainToInstance(Exposing, { other: 'x', renamed: 'y' }, COMPILED_TRANSFORM_OPTIONS),
    );
    const withMap = () => ({ untyped: new Map([['a', 1]]) });
    const { library, compiled } = bothTransforms(Tagged, withMap);
    expect(compiled).toEqual(library);
    const grouped = compiledPlainToInstance(Tagged, { amount: '3' }, { enableImplicitConversion: true });
    expect(grouped.amount).toBe(3);
  });

  it('copies dates, as class-transformer does, and keeps no object of the plain value', () => {
    const when = new Date('2024-03-15T00:00:00Z');
    const leaf = { label: 'x' };
    const built = compiledPlainToInstance(Tagged, { when, untyped: when, leaf, refs: [leaf] });
    for (const key of ['when', 'untyped', 'leaf'] as const)
      expect(built[key] === when || built[key] === leaf).toBe(false);
    expect(built.when).toEqual(when);
    expect((built.refs as unknown[])[0]).not.toBe(leaf);
  });

  it('never writes onto the prototype of what it builds', () => {
    const built = compiledPlainToInstance(Tagged, JSON.parse('{"__proto__": {"polluted": 1}}')) as object;
    expect(Object.getPrototypeOf(built)).toBe(Tagged.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});
