/**
 * A parsed filter tree (query/filters.ts) as a parameterised WHERE clause: lookups on a record's
 * own columns, foreign keys followed as nested `IN (select id …)`, and masked hops narrowed to
 * records the caller may see (visibility.ts).
 */
import { sql, type Expression, type ExpressionBuilder, type SqlBool } from 'kysely';
import type { FilterTerm, FilterTree, Hop } from '../query/filters.ts';
import type { Caller, StoredField } from '../resources/define.ts';
import { entityOf } from '../resources/index.ts';
import { allowedTexts } from '../resources/validate.ts';
import { sortKey, sortKeyColumn } from '../text/sortkey.ts';
import type { Database, Dialect, Engine } from './engine/index.ts';
import { column, visibleIds, type Query } from './visibility.ts';

type Builder = ExpressionBuilder<Database, never>;

/** `%` and `_` are wildcards of LIKE: a searched value matches them literally. */
const likeEscaped = (text: string) => text.replace(/[\\%_]/g, (char) => `\\${char}`);
const like = (dialect: Dialect, column: Expression<unknown>, pattern: string) => {
  const match = sql<SqlBool>`${column} like ${pattern} escape '\\'`;
  // A scan of text is where a hostile filter spends time: it stops at the statement's deadline.
  return dialect.withinTime ? sql<SqlBool>`(${dialect.withinTime(column)} and ${match})` : match;
};
const COMPARISONS = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/**
 * How the records a filter is checked on are met: found through indexes (a searched text's
 * trigram candidates among them), or one by one as a walk through a page's order meets them,
 * where gathering candidates first would cost more than checking the few rows the walk reads.
 */
export type FilterUse = 'indexed' | 'walked';

/** A text's three-character parts (of code points, as FTS5's trigram tokenizer cuts them), each once. */
function trigramsOf(text: string): string[] {
  const characters = [...text];
  const parts = new Set<string>();
  for (let start = 0; start + 3 <= characters.length; start += 1) parts.add(characters.slice(start, start + 3).join(''));
  return [...parts];
}

/**
 * A case-insensitive part lookup on a searched text (`index: 'search'`): the records its trigram
 * index names, where the dialect asks for them and the searched key has three characters or more
 * (shorter ones have no trigram: every record is read). LIKE decides among them, so the answer is
 * the plain lookup's, byte for byte.
 */
function searched(dialect: Dialect, table: string, alias: string, term: FilterTerm, key: unknown, match: Expression<SqlBool>): Expression<SqlBool> {
  if (term.field.index !== 'search' || !dialect.trigramCandidates || typeof key !== 'string') return match;
  const trigrams = trigramsOf(key);
  if (trigrams.length === 0) return match;
  return sql<SqlBool>`(${dialect.trigramCandidates(table, sortKeyColumn(term.name), column(alias, 'id'), trigrams)} and ${match})`;
}

/**
 * The keys that start with `prefix`, as [from, to): to is the prefix with its last code point
 * one higher, so every key in between starts with it (keys compare by code point, the stores by
 * UTF-8 bytes: the same order). Null for an empty prefix, or one ending in the last code point.
 */
export function prefixRange(prefix: string): [string, string] | null {
  const points = [...prefix];
  const last = points.pop()?.codePointAt(0);
  if (last === undefined || last >= 0x10ffff) return null;
  // The surrogates are no code points a text holds: after U+D7FF comes U+E000.
  return [prefix, points.join('') + String.fromCodePoint(last === 0xd7ff ? 0xe000 : last + 1)];
}

/**
 * Whether a part lookup on `term` (a text of `table`) is decided on its key's distinct values
 * first: where the key has an index (every ordered field) holding few of them beside its rows
 * (Engine#fewKeys). A two-letter search has no trigram, so its records were all read (at scale
 * 100, `name__icontains=he` of custom fields counted per project: 0.5 s); among the 24 names
 * the matching ones are found, and their records in the index (65 ms).
 */
function byKeys(engine: Engine, table: string, term: FilterTerm): boolean {
  if (term.lookup !== 'icontains' && term.lookup !== 'iendswith' && term.lookup !== 'istartswith') return false;
  if (term.field.type !== 'text' || !term.field.orderable) return false;
  // A prefix is a range of the key's index already.
  if (term.lookup === 'istartswith' && prefixRange(sortKey(term.value as string) ?? '')) return false;
  return engine.fewKeys(table, sortKeyColumn(term.name));
}

/** Whether any term of `tree` is a part lookup decided on its keys first (`onKeys`: decidedOnKeys). */
export function anyOnKeys(tree: FilterTree | undefined, onKeys: (term: FilterTerm) => boolean): boolean {
  if (!tree) return false;
  switch (tree.kind) {
    case 'term': return onKeys(tree);
    case 'not': return anyOnKeys(tree.item, onKeys);
    default: return tree.items.some((item) => anyOnKeys(item, onKeys));
  }
}

/** Which part lookups of a record of `table` are decided on their keys first (servedByIndex). */
export const decidedOnKeys = (engine: Engine, table: string) => (term: FilterTerm) => term.hops.length === 0 && byKeys(engine, table, term);

/**
 * The distinct keys of `table.column` that are LIKE `pattern`, in the statement itself (so of the
 * data it reads, whatever was written since the statistics): met one index seek each, every next
 * key the least one above the last (a loose index scan), compared as each record's key would be.
 */
function keysLike(table: string, column: string, pattern: string) {
  const [from, key] = [sql.table(table), sql.ref(column)];
  return sql`with recursive keys(key) as (select min(${key}) from ${from} union all select (select min(${key}) from ${from} where ${key} > keys.key) from keys where keys.key is not null) select key from keys where key like ${pattern} escape '\\'`;
}

const closedSets = new WeakMap<StoredField, ReadonlySet<string> | null>();

/**
 * The texts a field can hold (validate.ts, allowedTexts), if no two of them share a D7 key; else
 * null. Among them an equal key is an equal text, so the key's index decides an equality alone
 * (and a count per project reads that index alone, as a range's does).
 */
export function closedValues(field: StoredField): ReadonlySet<string> | null {
  let values = closedSets.get(field);
  if (values === undefined) {
    const allowed = allowedTexts(field) ?? [];
    values = allowed.length > 0 && new Set(allowed.map(sortKey)).size === allowed.length ? new Set(allowed) : null;
    closedSets.set(field, values);
  }
  return values;
}

/** One lookup on `alias.name` (a record of `table`); text compares by its D7 key where case does not matter or order does. */
function condition(eb: Builder, engine: Engine, table: string, alias: string, term: FilterTerm, use: FilterUse = 'indexed'): Expression<SqlBool> {
  const { dialect } = engine;
  const value = term.value;
  const text = term.field.type === 'text';
  const plain = column(alias, term.name);
  const keyed = text ? column(alias, sortKeyColumn(term.name)) : plain;
  const stored = (item: unknown) => (text ? item : dialect.toDb(term.field, item));
  const key = (item: unknown) => (text ? sortKey(item as string) : dialect.toDb(term.field, item));
  switch (term.lookup) {
    case 'exact':
      if (value === null) return eb(plain, 'is', null);
      if (!text) return eb(plain, '=', stored(value));
      // Equal text has equal D7 keys: the key's index finds the candidates, the text decides
      // (unless the field can hold no other text of that key).
      return closedValues(term.field)?.has(value as string) ? eb(keyed, '=', key(value)) : eb.and([eb(keyed, '=', key(value)), eb(plain, '=', value)]);
    case 'iexact':
      return eb(keyed, '=', key(value));
    case 'contains': return like(dialect, plain, `%${likeEscaped(value as string)}%`);
    case 'startswith': return like(dialect, plain, `${likeEscaped(value as string)}%`);
    case 'endswith': return like(dialect, plain, `%${likeEscaped(value as string)}`);
    case 'icontains':
    case 'istartswith':
    case 'iendswith': {
      const part = key(value) as string;
      const pattern = `${term.lookup === 'istartswith' ? '' : '%'}${likeEscaped(part)}${term.lookup === 'iendswith' ? '' : '%'}`;
      // An ordered text's prefix is a range of its key's index (counted per project from that index alone).
      const range = term.lookup === 'istartswith' && term.field.orderable ? prefixRange(part) : null;
      if (range) return eb.and([eb(keyed, '>=', range[0]), eb(keyed, '<', range[1]), like(dialect, keyed, pattern)]);
      const match = like(dialect, keyed, pattern);
      // A page walked in its order checks each row it meets: no candidates (keys or trigrams) to
      // gather first. Listing a text's keys costs a seek each however few rows the walk reads (at
      // scale 100, 421 keys of comments: 15 ms for a page 1 whose 30 rows LIKE checks in 0.1).
      if (use === 'walked') return match;
      if (byKeys(engine, table, term)) return dialect.amongFew(keyed, sql`(${keysLike(table, sortKeyColumn(term.name), pattern)})`);
      return searched(dialect, table, alias, term, part, match);
    }
    case 'in': {
      const items = value as unknown[];
      if (!items.length) return sql<SqlBool>`1 = 0`;
      // Codes the field can hold are told apart by their keys: the key's index decides, as an equality's.
      const closed = text ? closedValues(term.field) : null;
      if (closed && items.every((item) => closed.has(item as string))) return eb(keyed, 'in', items.map(key));
      return eb(plain, 'in', items.map(stored));
    }
    case 'range': {
      const [low, high] = value as unknown[];
      return eb.and([eb(keyed, '>=', key(low)), eb(keyed, '<=', key(high))]);
    }
    case 'isnull':
      return value ? eb(plain, 'is', null) : eb(plain, 'is not', null);
    default:
      return eb(keyed, COMPARISONS[term.lookup], key(value));
  }
}

/** The ids of `hop.table` a term's next step may go to: those `narrow` keeps, only visible ones where the hop is masked. */
function hopTargets(engine: Engine, caller: Caller, hop: Hop, depth: number, narrow: (query: Query) => Query): Query {
  const ids: Query = narrow(engine.db.selectFrom(`${hop.table} as f`).select('f.id'));
  return hop.masked ? ids.where('f.id', 'in', visibleIds(engine, entityOf(hop.table), caller, `m${depth}`)) : ids;
}

/** A term on the record itself, or through its foreign keys as nested `IN (select id …)`. */
function termExpression(eb: Builder, engine: Engine, caller: Caller, table: string, term: FilterTerm, use: FilterUse): Expression<SqlBool> {
  if (term.hops.length === 0) return condition(eb, engine, table, 't', term, use);
  const last = term.hops.length - 1;
  let ids = hopTargets(engine, caller, term.hops[last], last, (query) => query.where((inner) => condition(inner as never, engine, term.hops[last].table, 'f', term)));
  for (let index = last - 1; index >= 0; index -= 1) {
    const within = ids;
    ids = hopTargets(engine, caller, term.hops[index], index, (query) => query.where(column('f', term.hops[index + 1].foreignKey), 'in', within));
  }
  return eb(column('t', term.hops[0].foreignKey), 'in', ids);
}

function filterExpression(eb: Builder, engine: Engine, caller: Caller, table: string, tree: FilterTree, use: FilterUse): Expression<SqlBool> {
  const each = (item: FilterTree) => filterExpression(eb, engine, caller, table, item, use);
  switch (tree.kind) {
    case 'term': return termExpression(eb, engine, caller, table, tree, use);
    // Django's exclude() keeps records whose compared value is NULL: NOT of unknown is unknown in SQL.
    case 'not': return sql<SqlBool>`not coalesce(${each(tree.item)}, 1 = 0)`;
    case 'and': return tree.items.length ? eb.and(tree.items.map(each)) : sql<SqlBool>`1 = 1`;
    case 'or': return eb.or(tree.items.map(each));
  }
}

/**
 * Whether an index finds the records the filters match without reading the others: a term on an
 * indexed column (every orderable field, every foreign key, `index: 'filter'`) other than a
 * case-sensitive part lookup, a part lookup of three characters or more on a searched text or
 * of any length decided on a text's keys (`onKeys`: decidedOnKeys), a term through a foreign key;
 * all of an OR, one of an AND. (pages/in-sql.ts weighs a page's ways by it.)
 */
export function servedByIndex(tree: FilterTree, onKeys: (term: FilterTerm) => boolean = () => false): boolean {
  const served = (item: FilterTree) => servedByIndex(item, onKeys);
  switch (tree.kind) {
    case 'and': return tree.items.some(served);
    case 'or': return tree.items.length > 0 && tree.items.every(served);
    case 'not': return false;
    case 'term': {
      if (tree.hops.length > 0) return true;
      const { field } = tree;
      switch (tree.lookup) {
        case 'contains': case 'startswith': case 'endswith': return false;
        case 'icontains': case 'istartswith': case 'iendswith': {
          const part = sortKey(tree.value as string) ?? '';
          if (tree.lookup === 'istartswith' && field.orderable && prefixRange(part)) return true;
          return onKeys(tree) || (field.index === 'search' && [...part].length >= 3);
        }
        default: return field.orderable || field.references !== undefined || field.index === 'filter';
      }
    }
  }
}

/** `query` (records of `table` as `t`) narrowed to those matching the filters. */
export function whereFilters(query: Query, engine: Engine, caller: Caller, table: string, filters: FilterTree | undefined, use: FilterUse = 'indexed'): Query {
  // No filter at all (the common case) adds nothing: not even an expression builder to make.
  if (!filters || (filters.kind === 'and' && filters.items.length === 0)) return query;
  return query.where((eb) => filterExpression(eb as never, engine, caller, table, filters, use));
}
