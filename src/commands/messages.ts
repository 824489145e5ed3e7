/** How commands talk to the person running them: lines on stderr (data goes to files or stdout). */
import { formatCount } from '../store/progress.ts';

export { formatCount };

export const say = (message: string) => process.stderr.write(`${message}\n`);

/** Records per file, as "project 1,234, budget_item 5,678". */
export function summary(counts: Map<string, number>): string {
  return [...counts].filter(([, count]) => count > 0).map(([file, count]) => `${file} ${formatCount(count)}`).join(', ');
}

/** Rows under a header, each column as wide as its widest cell, two spaces apart (for stdout: `user list`). */
export function table(header: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  return [header, ...rows].map((row) => row.map((cell, column) => cell.padEnd(widths[column])).join('  ').trimEnd()).join('\n');
}

/** A mistake in how a command was called: its message, then the usage (of `command`, when known). */
export class UsageError extends Error {
  readonly command: string | undefined;

  constructor(message: string, command?: string) {
    super(message);
    this.command = command;
  }
}
/** The database cannot be reached: said in one line, without a stack. */
export class Unavailable extends Error {}
