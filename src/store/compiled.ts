/**
 * Building and compiling a Kysely query costs more than running it on SQLite. Requests repeat a
 * few query shapes, so each shape is compiled once and then run with its own parameters.
 */
import type SQLite from 'better-sqlite3';
import { CompiledQuery, type Compilable } from 'kysely';
import { preparedStatement, type Connection } from './connect.ts';

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
  // An open transaction (a bulk import that awaits its files) is waited for through Kysely.
  if (connection.sqlite && !connection.sqlite.inTransaction) return readSqlite(connection.sqlite, compiled.sql, parameters) as R[];
  const result = await connection.db.executeQuery<R>(CompiledQuery.raw(compiled.sql, parameters));
  return result.rows;
}

const columnNames = new WeakMap<SQLite.Statement, string[]>();

/**
 * better-sqlite3 spends more time building a row object than reading the row; rows read as
 * arrays and assembled here with their keys in one fixed order cost half as much.
 */
function readSqlite(database: SQLite.Database, text: string, parameters: unknown[]): Record<string, unknown>[] {
  const statement = preparedStatement(database, text, 'arrays');
  let names = columnNames.get(statement);
  if (!names) columnNames.set(statement, (names = statement.columns().map((column) => column.name)));
  const keys = names;
  return (statement.all(...parameters) as unknown[][]).map((values) => {
    const row: Record<string, unknown> = {};
    for (let index = 0; index < keys.length; index += 1) row[keys[index]] = values[index];
    return row;
  });
}
