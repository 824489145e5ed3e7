/**
 * Functions that build records as object literals, made once per table or resource: every record
 * then has one shape, where a loop storing each column under a computed name makes V8 look up
 * every store in a megamorphic cache (what fast-json-stringify does for serializers, here for
 * building rows).
 *
 * The generated source is made from a typed description, never from text a caller writes: keys
 * and property names must be plain identifiers (a declaration's field names, a table's columns),
 * and `__proto__`, which an object literal would take as the object's prototype rather than a
 * key, is refused; functions are passed in as values, each bound to a name of its own.
 */
import type { Row } from '../resources/define.ts';

/** How the value of one key is found, from the built function's inputs `(a0, a1, …)`. */
export type Value =
  /** `a0[element]`: the first input is an array (a row read as values). */
  | { element: number }
  /** `a0.property`, or `then(a0.property, a0, a1, …)`. */
  | { property: string; then?: (value: never, ...inputs: never[]) => unknown }
  /** `call(a0, a1, …)`. */
  | { call: (...inputs: never[]) => unknown };

const PLAIN = /^[A-Za-z_$][\w$]*$/;

/** Whether `name` may be a key or property name of a generated literal. */
export const isPlainName = (name: string): boolean => PLAIN.test(name) && name !== '__proto__';

function plain(name: string): string {
  if (!isPlainName(name)) throw new Error(`${JSON.stringify(name)} cannot be a key of a generated object literal: only plain identifiers, and not __proto__`);
  return name;
}

/**
 * A function of `arity` inputs returning `{ key: value, … }` for `fields` in their order. Throws
 * on a key or property that is not a plain identifier, and on an element that is not an index.
 */
export function objectLiteral<Inputs extends unknown[]>(fields: readonly (readonly [key: string, value: Value])[], arity = 1): (...inputs: Inputs) => Row {
  const inputs = Array.from({ length: Math.max(1, arity) }, (_, index) => `a${index}`);
  const names: string[] = [];
  const bound: unknown[] = [];
  const bind = (fn: unknown) => {
    names.push(`f${names.length}`);
    bound.push(fn);
    return names[names.length - 1];
  };
  const expression = (value: Value): string => {
    if ('element' in value) {
      if (!Number.isSafeInteger(value.element) || value.element < 0) throw new Error(`element ${value.element} is not an index`);
      return `a0[${value.element}]`;
    }
    if ('property' in value) {
      const read = `a0.${plain(value.property)}`;
      return value.then ? `${bind(value.then)}(${[read, ...inputs].join(', ')})` : read;
    }
    return `${bind(value.call)}(${inputs.join(', ')})`;
  };
  const literal = fields.map(([key, value]) => `${plain(key)}: ${expression(value)}`).join(', ');
  return new Function(...names, `return (${inputs.join(', ')}) => ({ ${literal} });`)(...bound) as (...inputs: Inputs) => Row;
}
