/**
 * Building and compiling a Kysely query costs more than running it on SQLite. Requests repeat a
 * few query shapes, so each shape is compiled once and then run with its own parameters.
 */
import { CompiledQuery, type Compilable } from 'kysely';
import type { Connection } from './connect.js';

const MAX_SHAPES = 2000;
const shapes = new WeakMap<Connection['db'], Map<string, CompiledQuery>>();

/**
 * Runs the query of `shape`: `build` is compiled the first time; later runs take its SQL and
 * replace the parameters from `varying` on (those the shape does not fix) with `values`.
 */
export async function runShaped<R>(connection: Connection, shape: string, build: () => Compilable<R> | Promise<Compilable<R>>, varying: number, values: readonly unknown[]): Promise<R[]> {
  let cache = shapes.get(connection.db);
  if (!cache) shapes.set(connection.db, (cache = new Map()));
  let compiled = cache.get(shape);
  if (!compiled) {
    if (cache.size >= MAX_SHAPES) cache.delete(cache.keys().next().value as string);
    compiled = (await build()).compile();
    cache.set(shape, compiled);
  }
  const parameters = [...compiled.parameters.slice(0, compiled.parameters.length - varying), ...values];
  const result = await connection.db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
  return result.rows;
}
