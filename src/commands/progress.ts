/**
 * How far a long command is (import, export, demo, backup, restore), on stderr: a bar with the
 * total and the time left when stderr is a terminal (a person watching), and otherwise a plain
 * line every couple of seconds (a log keeps lines; a bar's redrawing would fill it with
 * escape codes).
 */
import cliProgress from 'cli-progress';
import type { DatasetSource } from '../store/import.ts';
import { formatCount, type Progress } from '../store/progress.ts';
import { say } from './messages.ts';

export type Unit = 'records' | 'bytes';

/** Plain lines come at most this often: enough to see a long run is alive. */
const LINE_INTERVAL_MS = 2000;

export const onTerminal = (): boolean => process.stderr.isTTY === true;

/** Bytes in MB, or in kB below one MB. */
const inBytes = (value: number, of: number): [string, string] => (of < 1e6 ? [(value / 1e3).toFixed(1), 'kB'] : [(value / 1e6).toFixed(1), 'MB']);

/** An amount as shown: "1,234 records", "12.3 MB". */
export function amount(value: number, unit: Unit): string {
  return unit === 'bytes' ? inBytes(value, value).join(' ') : `${formatCount(value)} records`;
}

/** Part of a whole as a bar shows it: "1,234/5,678 records", "12.3/42.4 MB". */
export function fraction(done: number, total: number, unit: Unit): string {
  return `${unit === 'records' ? formatCount(done) : inBytes(done, total)[0]}/${amount(total, unit)}`;
}

/** Seconds as a bar shows the time left: 8s, 1m05s, 2h03m; "?" until it can be estimated. */
export function timeLeft(seconds: unknown): string {
  if (typeof seconds !== 'number' || !Number.isFinite(seconds)) return '?';
  const s = Math.max(0, Math.round(seconds));
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

export interface Reporter {
  /** What the store is told to call (store/progress.ts). */
  tell: Progress;
  /** The run is over: a bar is left on its line, drawn complete if the run was. */
  stop(completed: boolean): void;
}

/** A reporter for one run, titled "Exporting", "Backing up"…, counting in `unit`. */
export function reporter(title: string, unit: Unit, terminal = onTerminal()): Reporter {
  return terminal ? barReporter(title, unit) : lineReporter(unit);
}

/** Runs `work` with progress shown, titled "Exporting", "Backing up"…, counting in `unit`. */
export async function withProgress<T>(title: string, unit: Unit, work: (tell: Progress) => Promise<T>): Promise<T> {
  const shown = reporter(title, unit);
  try {
    const result = await work(shown.tell);
    shown.stop(true);
    return result;
  } catch (error) {
    shown.stop(false);
    throw error;
  }
}

/** The first update at once (the run has begun, and how large it is), then one every LINE_INTERVAL_MS. */
function lineReporter(unit: Unit): Reporter {
  let last = -Infinity;
  return {
    tell(done, total, what) {
      if (Date.now() - last < LINE_INTERVAL_MS) return;
      last = Date.now();
      say(`  ${what}… ${total > 0 ? `${Math.floor((done / total) * 100)}% of ${amount(total, unit)}` : ''}`.trimEnd());
    },
    stop: () => undefined,
  };
}

function barReporter(title: string, unit: Unit): Reporter {
  const bar = new cliProgress.SingleBar({
    stream: process.stderr,
    format: `${title} [{bar}] {percentage}% | {fraction} | ETA {eta_formatted} | {what}`,
    formatTime: timeLeft,
    barsize: 30,
    hideCursor: true,
    // Time left from the last 200 updates (a few seconds of batches): steady, yet following the pace.
    etaBuffer: 200,
    fps: 5,
  }, cliProgress.Presets.shades_classic);
  let started = false;
  let whole = 0;
  return {
    tell(done, total, what) {
      whole = total;
      const payload = { fraction: fraction(done, total, unit), what };
      if (!started) {
        started = true;
        bar.start(total, done, payload);
      } else {
        if (total !== bar.getTotal()) bar.setTotal(total);
        bar.update(done, payload);
      }
    },
    stop(completed) {
      if (!started) return;
      if (completed) bar.update(whole, { fraction: fraction(whole, whole, unit), what: 'done' });
      bar.stop();
    },
  };
}

/**
 * The import's hook (records of one file so far) as progress over all its sources: in bytes of
 * the files, or in records where they were counted beforehand; where their sizes are not known,
 * in records without a total.
 */
export function importProgress(sources: readonly DatasetSource[], tell: Progress): (file: string, records: number) => void {
  const sized = sources.every((source) => source.size);
  const byFile = new Map(sources.map((source) => [source.file, source]));
  const offsets = new Map<string, number>();
  let total = 0;
  for (const source of sources) {
    offsets.set(source.file, total);
    total += source.size?.total ?? 0;
  }
  let earlier = 0; // sizes unknown: the records of the files done
  let current = { file: '', records: 0 };
  return (file, records) => {
    const source = byFile.get(file) as DatasetSource;
    if (file !== current.file) {
      earlier += current.records;
      current = { file, records };
    }
    current.records = records;
    const done = source.size && sized ? (offsets.get(file) ?? 0) + source.size.done(records) : earlier + records;
    tell(done, sized ? total : 0, `${source.label}: ${formatCount(records)} records`);
  };
}

/** The unit the sources are measured in (all alike: files in bytes, generated records in records). */
export const unitOf = (sources: readonly DatasetSource[]): Unit => sources[0]?.size?.unit ?? 'records';
