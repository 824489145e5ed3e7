/**
 * Records as the API shows them: every field of the declaration, in its order, stored values
 * rendered and derived values computed. Shared by the HTTP layer and export.
 */
import { objectLiteral, type Value } from '../codegen/object-literal.ts';
import { renderTimestamp } from '../text/time.ts';
import { storedFields, type Caller, type Entity, type Field, type Lookup, type Related, type Relation, type Resource, type Row } from './define.ts';

export interface RenderOptions {
  caller: Caller;
  /** Zone of rendered timestamps (decision D4). */
  timeZone: string;
}

function storedValue(type: string, value: unknown, timeZone: string): unknown {
  return type === 'timestamp' && typeof value === 'string' ? renderTimestamp(value, timeZone) : value;
}

/** The rows one relation reaches, for each of `rows` (one query for the page). */
async function readRelation(relation: Relation, rows: Row[], lookup: Lookup): Promise<(Row | Row[] | null)[]> {
  if (relation.kind === 'one') {
    const ids = [...new Set(rows.map((row) => row[relation.via]).filter((value) => value !== null))];
    const targets = new Map((await lookup.byColumn(relation.table, 'id', ids)).map((target) => [target.id, target]));
    return rows.map((row) => targets.get(row[relation.via]) ?? null);
  }
  const byParent = new Map<unknown, Row[]>();
  for (const child of (await lookup.byColumn(relation.table, relation.column, rows.map((row) => row.id))).sort((a, b) => a.id - b.id)) {
    const list = byParent.get(child[relation.column]);
    if (list) list.push(child);
    else byParent.set(child[relation.column], [child]);
  }
  return rows.map((row) => byParent.get(row.id) ?? []);
}

/** The related rows of each record of a page, as the resource declares them. */
async function relatedOf(resource: Resource, rows: Row[], lookup: Lookup, caller: Caller): Promise<Related[]> {
  const related: Related[] = rows.map(() => ({}));
  if (rows.length === 0) return related;
  const relations = Object.entries(resource.related ?? {});
  const reached = await Promise.all(relations.map(([, relation]) => readRelation(relation, rows, lookup)));
  relations.forEach(([name], index) => reached[index].forEach((value, row) => (related[row][name] = value)));
  if (resource.expand) await resource.expand(rows, related, lookup, caller);
  return related;
}

type RecordRenderer = (row: Row, context: { caller: Caller }, related: Related, timeZone: string) => Row;
const renderers = new WeakMap<Resource, RecordRenderer>();

/**
 * One record as the API shows it, by a function made once per resource: an object literal of
 * its fields in declaration order (one shape for every record, as fast-json-stringify expects).
 */
function recordRenderer(resource: Resource): RecordRenderer {
  let renderer = renderers.get(resource);
  if (renderer) return renderer;
  const stored = (stamp: unknown, row: Row, context: unknown, related: Related, timeZone: string) => storedValue('timestamp', stamp, timeZone);
  const value = (name: string, field: Field): Value => {
    if (field.kind === 'derived') return { call: field.compute };
    if (field.render) return { call: field.render };
    return field.type === 'timestamp' ? { property: name, then: stored } : { property: name };
  };
  renderer = objectLiteral<Parameters<RecordRenderer>>(Object.entries(resource.fields).map(([name, field]) => [name, value(name, field)]), 4) as RecordRenderer;
  renderers.set(resource, renderer);
  return renderer;
}

/** Reads the page's related rows (batched) and renders each record. */
export async function renderRecords(resource: Resource, rows: Row[], lookup: Lookup, options: RenderOptions): Promise<Row[]> {
  const related = await relatedOf(resource, rows, lookup, options.caller);
  const context = { caller: options.caller };
  const render = recordRenderer(resource);
  return rows.map((row, index) => render(row, context, related[index], options.timeZone));
}

/** A supporting entity's record (dataset.md): its stored fields, timestamps rendered. */
export function renderStored(entity: Entity, row: Row, timeZone: string): Row {
  const record: Row = {};
  for (const [name, field] of storedFields(entity)) record[name] = storedValue(field.type, row[name], timeZone);
  return record;
}
