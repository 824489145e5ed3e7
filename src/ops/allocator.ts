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
 * hand through a debugger) took them to 162. It is called through koffi, a foreign-function
 * library, since Node has no binding of its own; where there is no glibc (macOS, musl) it is
 * nothing. It runs on a thread of libuv's pool, not on the event loop: giving back 100 MiB freed
 * in small pieces took 0.6 s.
 */
let trim: Promise<(() => Promise<number>) | null> | undefined;

const loadTrim = async (): Promise<(() => Promise<number>) | null> => {
  try {
    const { default: koffi } = await import('koffi');
    const trimOf = koffi.load('libc.so.6').func('int malloc_trim(size_t pad)');
    return () => new Promise((resolve, reject) => trimOf.async(0, (error: unknown, given: number) => (error ? reject(error) : resolve(given))));
  } catch {
    return null;
  }
};

/** Trims made in this process, and the resident bytes they gave back (the metrics). */
const trims = { count: 0, bytes: 0 };
export const allocatorTrims = (): Readonly<typeof trims> => ({ ...trims });

/** The trim under way, if any: the next waits for it (two at once would count the same bytes twice). */
let last: Promise<unknown> = Promise.resolve();

/** Gives the system back the memory the C allocator holds free; resolves whether any was given. */
export function trimAllocator(): Promise<boolean> {
  const next = last.then(trimOnce);
  last = next.catch(() => undefined);
  return next;
}

async function trimOnce(): Promise<boolean> {
  const trimmed = await (trim ??= loadTrim());
  if (!trimmed) return false;
  const before = process.memoryUsage.rss();
  const gave = (await trimmed()) === 1;
  trims.count += 1;
  trims.bytes += Math.max(0, before - process.memoryUsage.rss());
  return gave;
}
