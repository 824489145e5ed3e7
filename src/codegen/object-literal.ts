/**
 * Functions that build records as object literals, made once per table or resource: every record
 * then has one shape, where a loop storing each column under a computed name makes V8 look up
 * every store in a megamorphic cache.
 */
import type { Row } from '../resources/define.ts';

/**
 * A function of `parameters` returning an object literal with these keys, each value the given
 * expression: what fast-json-stringify does for serializers, here for building rows. Keys are
 * the declarations' own names, written as JSON strings; values are expressions of ours.
 */
export function objectLiteral(keys: readonly string[], value: (key: string, index: number) => string, names: readonly string[], bound: readonly unknown[], parameters: string): (input: never) => Row {
  const body = `return (${parameters}) => ({ ${keys.map((key, index) => `${JSON.stringify(key)}: ${value(key, index)}`).join(', ')} });`;
  return new Function(...names, body)(...bound) as (input: never) => Row;
}
