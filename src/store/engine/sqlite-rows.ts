/**
 * Statements of the embedded engine's own connection: prepared once per SQL text and run
 * synchronously, their rows read as arrays (half the cost of objects) and assembled into objects
 * of one shape by a builder made once per list of column names. A running statement has a
 * deadline, which its scans check row by row (sqlite-setup.ts, `rsr_within_time`).
 */
import type SQLite from 'better-sqlite3';
import { isPlainName, objectLiteral } from '../../codegen/object-literal.ts';
import type { Columns, EngineOptions } from './engine.ts';
import { statementCache } from './sqlite-setup.ts';

/** Rows whose column names an object literal cannot take (`select 1`): built key by key. */
const anyNames = (names: readonly string[]) => (values: unknown[]): Columns => {
  const row: Columns = {};
  names.forEach((name, index) => Object.defineProperty(row, name, { value: values[index], enumerable: true, writable: true, configurable: true }));
  return row;
};

export class SqliteStatements {
  readonly prepared: ReturnType<typeof statementCache>;
  /** When the statement running now must end (performance.now()); none outside `read`. */
  deadline = Infinity;
  private readonly timeoutMs: number;
  private readonly observe: EngineOptions['onQuery'];
  private readonly builders = new Map<string, (values: unknown[]) => Columns>();
  private readonly byStatement = new WeakMap<SQLite.Statement, (values: unknown[]) => Columns>();

  constructor(handle: SQLite.Database, timeoutMs: number, observe: EngineOptions['onQuery']) {
    this.prepared = statementCache(handle);
    this.timeoutMs = timeoutMs;
    this.observe = observe;
  }

  /** A builder of row objects of one shape from arrays of these columns, made once per list of names. */
  rowBuilder(names: string[]): (values: unknown[]) => Columns {
    const key = names.join('\u0000');
    let build = this.builders.get(key);
    if (!build) this.builders.set(key, (build = names.every(isPlainName) ? (objectLiteral<[unknown[]]>(names.map((name, index) => [name, { element: index }])) as (values: unknown[]) => Columns) : anyNames(names)));
    return build;
  }

  /** The rows of a statement, within its time. */
  read(text: string, parameters: readonly unknown[]): Columns[] {
    const statement = this.prepared(text, 'arrays');
    let build = this.byStatement.get(statement);
    if (!build) this.byStatement.set(statement, (build = this.rowBuilder(statement.columns().map((column) => column.name))));
    const started = performance.now();
    if (this.timeoutMs > 0) this.deadline = started + this.timeoutMs;
    let failed = true;
    try {
      const rows = (statement.all(...parameters) as unknown[][]).map(build);
      failed = false;
      return rows;
    } finally {
      this.deadline = Infinity;
      this.observe?.((performance.now() - started) / 1000, failed);
    }
  }
}
