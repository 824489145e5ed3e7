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

/**
 * Memory a thread allocated and freed stays with the C allocator: glibc gives an arena back to the
 * system only from its top, so a report thread's thousands of small buffers, freed when it ends,
 * leave their arena's pages resident and unused. After the eleven heavy downloads at scale 100,
 * workers idle again held 206–241 MiB where they held 157 before them; `malloc_trim(0)` (called by
 * hand through a debugger) took them to 162. It trims every arena of the process (the SQLite
 * reader threads' too), called through koffi, a foreign-function library, since Node has no
 * binding of its own; where there is no glibc (macOS, musl) it is nothing. It runs on a thread of
 * libuv's pool, not on the event loop (giving back 230 MiB freed in 1 KiB pieces takes 50–60 ms
 * here; 100 MiB of a thread's Buffers took 0.6 s on a busier machine), but it locks each arena
 * while it walks it: a thread allocating from that arena waits meanwhile. Hence it is called where
 * a burst of work has just ended.
 */
let trim: Promise<(() => Promise<number>) | null> | undefined;

const loadTrim = async (): Promise<(() => Promise<number>) | null> => {
  try {
    const { default: koffi } = await import('koffi');
    const trimOf = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    return () => new Promise((resolve, reject) => trimOf.async(0, (error: unknown, given: number) => (error ? reject(error) : resolve(given))));
  } catch (error) {
    // No glibc: nothing to trim. On glibc, koffi itself failed (its platform's package missing):
    // said once, for the trims' metrics then stay at zero.
    if (glibc()) process.emitWarning(`The C allocator's free memory cannot be given back (malloc_trim through koffi): ${String(error)}`);
    return null;
  }
};

/** Whether the process runs on glibc (which alone has malloc_trim). */
export const glibc = (): boolean => Boolean((process.report.getReport() as { header?: { glibcVersionRuntime?: string } }).header?.glibcVersionRuntime);

/** Trims made in this process, and about the resident bytes they gave back (the metrics). */
const trims = { count: 0, bytes: 0 };
export const allocatorTrims = (): Readonly<typeof trims> => ({ ...trims });

/** The trim under way, and the one to follow it, shared by every call made meanwhile. */
let running: Promise<boolean> | null = null;
let following: Promise<boolean> | null = null;

/**
 * Gives the system back the memory the C allocator holds free; resolves whether any was given
 * (never rejects). Calls made while a trim runs share one more after it (which gives back what
 * was freed meanwhile): several report threads ending together make two trims, not one each.
 */
export function trimAllocator(): Promise<boolean> {
  if (!running) {
    running = trimOnce().finally(() => (running = null));
    return running;
  }
  following ??= running.then(() => {
    following = null;
    return trimAllocator();
  });
  return following;
}

async function trimOnce(): Promise<boolean> {
  const trimmed = await (trim ??= loadTrim());
  if (!trimmed) return false;
  // About what it gave back: other threads allocate and free meanwhile.
  const before = process.memoryUsage.rss();
  const gave = await trimmed().then((given) => given === 1, () => false);
  trims.count += 1;
  trims.bytes += Math.max(0, before - process.memoryUsage.rss());
  return gave;
}
