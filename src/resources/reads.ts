/**
 * The tables a resource's answers are read from, derived from its declaration: a cached count or
 * answer of the resource is trusted while none of them changed (store/data-version.ts), so this
 * set may be larger than needed, never smaller. It holds the resource's table; every table its
 * foreign keys lead to, however far (filters follow them, visibility goes through them, derived
 * fields show the rows they name); the tables of its related rows and those `reads` declares for
 * `expand`; and the tables that decide who sees what (partnerships, users and their employments).
 */
import { storedFields, type Resource } from './define.ts';
import { entityOf } from './index.ts';

/** Who a caller is and which projects their organisations take part in: every list depends on them. */
const CALLERS = ['user', 'employment', 'partnership'];

const cache = new WeakMap<Resource, readonly string[]>();

/** Every table reachable from `tables` through foreign keys, those included. */
function throughForeignKeys(tables: readonly string[]): Set<string> {
  const reached = new Set<string>();
  const waiting = [...tables];
  for (let table = waiting.pop(); table !== undefined; table = waiting.pop()) {
    if (reached.has(table)) continue;
    reached.add(table);
    for (const [, field] of storedFields(entityOf(table))) if (field.references) waiting.push(field.references);
  }
  return reached;
}

export function tablesRead(resource: Resource): readonly string[] {
  let tables = cache.get(resource);
  if (!tables) {
    const related = Object.values(resource.related ?? {}).map((relation) => relation.table);
    const nested = (resource.nested ?? []).map((collection) => collection.entity.table);
    tables = [...throughForeignKeys([resource.table, ...related, ...nested, ...(resource.reads ?? []), ...CALLERS])].sort();
    cache.set(resource, tables);
  }
  return tables;
}
