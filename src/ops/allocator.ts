/**
 * The C allocator's settings for the processes that serve. glibc's malloc hands a block of 128 KiB
 * or more to the system when it is freed, until the first such block is freed: from then on it
 * raises that threshold (up to 32 MiB) and keeps large blocks in its arenas, which are not given
 * back. A report thread's buffers (fonts, zip entries, rendered pages) are such blocks: each round
 * of downloads left a worker a few MiB larger once idle (the soak's RSS climbed in steps after
 * downloads). Fixing the threshold, which is what setting it does, keeps every large block mapped
 * on its own and returned when freed: after five rounds of the eleven downloads, RSS 219 → 232 MiB
 * by default, 210 → 214 with it (`npm run bench:report-rounds`); the mix's throughput unchanged.
 * glibc reads it when a process starts, so the primary gives it to its workers (an operator's own
 * setting wins), and the image sets it for its single process. Other C libraries ignore it.
 */
export const ALLOCATOR_SETTINGS: Readonly<Record<string, string>> = { MALLOC_MMAP_THRESHOLD_: '131072' };

/** What a worker's environment adds to the primary's: the settings the operator has not made. */
export function allocatorEnvironment(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(ALLOCATOR_SETTINGS).filter(([name]) => env[name] === undefined));
}
