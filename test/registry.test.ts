/** The registry (src/resources/index.ts): what derives from the list of resources holds for every one. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { storedFields, type Entity } from '../src/resources/define.ts';
import { DATASET_FILES, dependencyOrder, IGNORED_DATASET_FILES, RESOURCES, TABLES } from '../src/resources/index.ts';
import { generateDemo } from '../demo/generate.ts';

test('every foreign key of a dataset file points to a file loaded before it, or to the record\'s own table', () => {
  const loaded = new Set<string>();
  for (const { entity } of DATASET_FILES) {
    for (const [name, field] of storedFields(entity)) {
      if (field.references && field.references !== entity.table) assert.ok(loaded.has(field.references), `${entity.table}.${name} -> ${field.references}`);
    }
    loaded.add(entity.table);
  }
});

test('every list is a dataset file of its own name, or computed and named as ignored', () => {
  const files = new Set(DATASET_FILES.map(({ file }) => file));
  for (const resource of RESOURCES) assert.ok(files.has(resource.name) !== IGNORED_DATASET_FILES.includes(resource.name), resource.name);
  assert.deepEqual(IGNORED_DATASET_FILES, ['my_projects']);
});

test('every table is declared once, targets before the tables pointing to them', () => {
  assert.equal(new Set(TABLES.map((entity) => entity.table)).size, TABLES.length);
  const position = new Map(TABLES.map((entity, index) => [entity.table, index]));
  for (const entity of TABLES) {
    for (const [name, field] of storedFields(entity)) {
      if (field.references && field.references !== entity.table) assert.ok(position.get(field.references)! < position.get(entity.table)!, `${entity.table}.${name}`);
    }
  }
});

test('foreign keys in a circle are refused, not ordered', () => {
  const key = storedFields(TABLES[0])[0][1];
  const circle: Entity[] = [{ table: 'x', fields: { y: { ...key, references: 'y' } } }, { table: 'y', fields: { x: { ...key, references: 'x' } } }];
  assert.throws(() => dependencyOrder(circle), { message: 'Foreign keys in a circle among x, y' });
});

test('the demo makes every dataset file but the built-in reports, in the registry\'s order', () => {
  const made = generateDemo({ scale: 0.01, seed: 1 }).map(({ entity }) => entity);
  assert.deepEqual(made, DATASET_FILES.map(({ file }) => file).filter((file) => file !== 'reports'));
});
