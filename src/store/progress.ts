/**
 * How a long run of the store (an import, an export, a backup, a restore) tells how far it is:
 * `done` of `total` (records, or bytes where the work is measured in bytes), now working on
 * `what` ("link: 1,234 records"). Told after every batch: the command line decides how often to
 * show it (a bar on a terminal, a line now and then in a log).
 */
export type Progress = (done: number, total: number, what: string) => void;

/** A count as messages write it: 1,234. */
export const formatCount = (count: number): string => count.toLocaleString('en-US');
