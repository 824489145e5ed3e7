/** How commands talk to the person running them: lines on stderr (data goes to files or stdout). */

export const say = (message: string) => process.stderr.write(`${message}\n`);

export const formatCount = (count: number) => count.toLocaleString('en-US');

/** Records per file, as "project 1,234, budget_item 5,678". */
export function summary(counts: Map<string, number>): string {
  return [...counts].filter(([, count]) => count > 0).map(([file, count]) => `${file} ${formatCount(count)}`).join(', ');
}

export const progress = (file: string, records: number) => say(`  ${file}: ${formatCount(records)} records…`);

/** A mistake in how the command was called: its message, then the usage. */
export class UsageError extends Error {}
/** The database cannot be reached: said in one line, without a stack. */
export class Unavailable extends Error {}
