/**
 * The object-literal generator (src/codegen/object-literal.ts): records of one shape built from a
 * typed description; keys that are not plain identifiers, and `__proto__`, refused; rows whose
 * column names it cannot take still read as they are, on every store.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CompiledQuery } from 'kysely';
import { isPlainName, objectLiteral } from '../src/codegen/object-literal.ts';
import { openEngine } from '../src/store/engine/index.ts';
import { testStores } from './support/server.ts';

describe('object literals made from a typed description', () => {
  test('elements, properties, properties through a function and calls, in the order given', () => {
    const build = objectLiteral<[Record<string, unknown>, number]>([
      ['b', { property: 'x' }],
      ['a', { property: 'y', then: (value: number, input: unknown, scale: number) => value * scale }],
      ['order', { call: (input: Record<string, unknown>, scale: number) => `${String(input.x)}/${scale}` }],
    ], 2);
    const built = build({ x: 'one', y: 2 }, 10);
    assert.deepEqual(built, { b: 'one', a: 20, order: 'one/10' });
    assert.deepEqual(Object.keys(built), ['b', 'a', 'order']);
    const fromArray = objectLiteral<[unknown[]]>([['first', { element: 1 }], ['second', { element: 0 }]]);
    assert.deepEqual(fromArray(['x', 'y']), { first: 'y', second: 'x' });
  });

  test('refuses keys and properties that are not plain identifiers, __proto__ above all, and elements that are no index', () => {
    for (const name of ['__proto__', 'a-b', '1st', '', 'x: 1, y', 'a.b', "x'"]) {
      assert.equal(isPlainName(name), false, name);
      assert.throws(() => objectLiteral([[name, { element: 0 }]]), /cannot be a key of a generated object literal/, `key ${name}`);
      assert.throws(() => objectLiteral([['ok', { property: name }]]), /cannot be a key of a generated object literal/, `property ${name}`);
    }
    for (const element of [-1, 1.5, Number.NaN]) assert.throws(() => objectLiteral([['ok', { element }]]), /is not an index/);
    for (const name of ['id', 'label_label', '$x', 'constructor', 'order']) assert.equal(isPlainName(name), true, name);
  });

  test('a value that is itself "__proto__" text or an object changes no prototype', () => {
    const build = objectLiteral<[Record<string, unknown>]>([['title', { property: 'title' }]]);
    const built = build({ title: { polluted: true } });
    assert.equal(Object.getPrototypeOf(built), Object.prototype);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
  });
});

for (const store of testStores()) {
  describe(`rows whose column names are no identifiers (${store.name})`, () => {
    test('are read key by key, each an own property', async () => {
      const database = await store.create();
      const engine = openEngine(database.url);
      try {
        const [row] = await engine.run(CompiledQuery.raw('select 1 as "__proto__", 2 as "a-b", 3 as plain'));
        assert.deepEqual(Object.keys(row), ['__proto__', 'a-b', 'plain']);
        assert.equal(Object.getPrototypeOf(row), Object.prototype);
        assert.deepEqual([Number(row['__proto__' as string]), Number(row['a-b']), Number(row.plain)], [1, 2, 3]);
      } finally {
        await engine.close();
        await database.drop();
      }
    });
  });
}
