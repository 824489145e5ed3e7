/**
 * Records as the API shows them: every field of the declaration, in its order, stored values
 * rendered and derived values computed. Shared by the HTTP layer and export.
 */
import { renderTimestamp } from '../text/time.ts';
import { storedFields, type Caller, type Entity, type Lookup, type Resource, type Row } from './define.ts';

export interface RenderOptions {
  caller: Caller;
  /** Zone of rendered timestamps (decision D4). */
  timeZone: string;
}

function storedValue(type: string, value: unknown, timeZone: string): unknown {
  return type === 'timestamp' && typeof value === 'string' ? renderTimestamp(value, timeZone) : value;
}

/** Expands the page's related rows (batched) and renders each record. */
export async function renderRecords(resource: Resource, rows: Row[], lookup: Lookup, options: RenderOptions): Promise<Row[]> {
  if (rows.length && resource.expand) await resource.expand(rows, lookup, options.caller);
  const context = { caller: options.caller };
  const fields = Object.entries(resource.fields);
  return rows.map((row) => {
    const record: Row = {};
    for (const [name, field] of fields) {
      if (field.kind === 'derived') record[name] = field.compute(row, context);
      else if (field.render) record[name] = field.render(row, context);
      else record[name] = storedValue(field.type, row[name], options.timeZone);
    }
    return record;
  });
}

/** A supporting entity's record (dataset.md): its stored fields, timestamps rendered. */
export function renderStored(entity: Entity, row: Row, timeZone: string): Row {
  const record: Row = {};
  for (const [name, field] of storedFields(entity)) record[name] = storedValue(field.type, row[name], timeZone);
  return record;
}
