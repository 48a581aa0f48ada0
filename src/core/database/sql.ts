/**
 * SQL composed as values. A fragment is written as a tagged template,
 *
 *   sql`s.user_owner_id = ${userId} AND ${visible}`
 *
 * where an interpolated value becomes a bind parameter and an interpolated `Sql` is spliced in
 * whole, its own parameters with it. Nobody counts placeholders: `toQuery()` numbers them `$1..$n`
 * once, for the finished statement. The same shape of statement always prints the same text, so
 * prepared-statement names derived from it stay stable (docs/decisions/0002-two-step-reads.md).
 *
 * Text enters a statement only from template literals written in the code, `raw()` and
 * `identifier()` — never from a request: those two are for compile-time constants (an alias, a
 * column from a fixed list, a LIMIT that must stay a literal for the planner).
 */

/** One bind parameter; the same Param embedded twice (a fragment used twice, `bind`) keeps one number. */
class Param {
  constructor(readonly value: unknown) {}
}

export interface SqlQuery {
  text: string;
  values: unknown[];
}

/**
 * An immutable SQL fragment: `strings.length === params.length + 1`, a parameter between each
 * two strings. Nested fragments are flattened when they are embedded, so a fragment never holds another.
 */
export class Sql {
  private constructor(
    private readonly strings: readonly string[],
    private readonly params: readonly Param[],
  ) {}

  /** @internal the tagged template; use `sql` */
  static compose(strings: readonly string[], values: readonly unknown[]): Sql {
    const out: string[] = [strings[0]];
    const params: Param[] = [];
    values.forEach((value, index) => {
      if (value instanceof Sql) {
        out[out.length - 1] += value.strings[0];
        out.push(...value.strings.slice(1));
        params.push(...value.params);
      } else {
        params.push(value instanceof Param ? value : new Param(value));
        out.push('');
      }
      out[out.length - 1] += strings[index + 1];
    });
    return new Sql(out, params);
  }

  /** @internal text as is; use `raw` */
  static text(text: string): Sql {
    return new Sql([text], []);
  }

  /** No text at all (a condition that does not apply); `and`/`or`/`join` leave it out. */
  get isEmpty(): boolean {
    return this.params.length === 0 && this.strings[0].trim() === '';
  }

  /** The statement with its placeholders numbered `$1..$n` in order of appearance, and their values. */
  toQuery(): SqlQuery {
    const numbers = new Map<Param, number>();
    const values: unknown[] = [];
    let text = this.strings[0];
    this.params.forEach((param, index) => {
      let number = numbers.get(param);
      if (number === undefined) {
        number = values.push(param.value);
        numbers.set(param, number);
      }
      text += `$${number}${this.strings[index + 1]}`;
    });
    return { text, values };
  }
}

/** The tagged template: values become bind parameters, `Sql` values are spliced in. */
export function sql(strings: TemplateStringsArray, ...values: unknown[]): Sql {
  return Sql.compose(strings, values);
}

/** The empty fragment. */
export const empty: Sql = Sql.text('');

/**
 * A parameter as a fragment, for a value a statement names twice: every place it is embedded
 * prints the same number (`$3 … $3`). Two interpolations of one plain value get two numbers.
 */
export function bind(value: unknown): Sql {
  return Sql.compose(['', ''], [new Param(value)]);
}

/** Text spliced in as it is: only for constants written in the code, never for input. */
export function raw(text: string): Sql {
  return Sql.text(text);
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * A table, column or alias name (optionally `alias.column`), checked to be a plain identifier and
 * spliced without quotes: only for names written in the code.
 */
export function identifier(name: string): Sql {
  if (!name.split('.').every((part) => IDENTIFIER.test(part))) {
    throw new Error(`Not a plain SQL identifier: ${JSON.stringify(name)}`);
  }
  return Sql.text(name);
}

/**
 * The text that `build` (a function written in the code, such as an identifier's normal form)
 * makes around an operand, with `operand` spliced in wherever `build` puts it.
 */
export function around(build: (operand: string) => string, operand: Sql): Sql {
  const marker = '\u0000';
  const parts = build(marker).split(marker);
  return Sql.compose(
    parts,
    parts.slice(1).map(() => operand),
  );
}

/** The parts, empty ones left out, with `separator` (text from the code) between them. */
export function join(parts: readonly Sql[], separator: string): Sql {
  const kept = parts.filter((part) => !part.isEmpty);
  if (!kept.length) return empty;
  const strings = ['', ...kept.slice(1).map(() => separator), ''];
  return Sql.compose(strings, kept);
}

/**
 * The conditions joined by AND, empty ones left out; `empty` when none is left. Each part must be
 * one condition (a part holding a bare OR must be parenthesised; `or()` is).
 */
export function and(...parts: Sql[]): Sql {
  return join(parts, ' AND ');
}

/** The conditions joined by OR in parentheses, empty ones left out; `empty` when none is left. */
export function or(...parts: Sql[]): Sql {
  const joined = join(parts, ' OR ');
  return joined.isEmpty || parts.filter((part) => !part.isEmpty).length === 1 ? joined : sql`(${joined})`;
}

/** A condition for a WHERE clause: `true` when there is none. */
export function condition(where: Sql): Sql {
  return where.isEmpty ? raw('true') : where;
}
