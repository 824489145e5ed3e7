/** The servers a benchmark run measures, each in its own process, on 127.0.0.1 only. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Running {
  name: string;
  base: string;
  pid: number;
  /** Resident memory of the server process, in MiB. */
  rssMiB(): number;
  /** Resident memory of each of its workers (its child processes), in MiB. */
  workersRssMiB(): number[];
  stop(): Promise<void>;
}

const root = new URL('..', import.meta.url).pathname;

const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/** Resident memory of each child process of `pid` in MiB. */
function childrenRss(pid: number): number[] {
  const children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);
  return children.map((child) => {
    try {
      return rssOf(child);
    } catch {
      return 0; // ended meanwhile
    }
  });
}

/** Resident memory of a server in MiB: of its largest process (a worker, when it has workers). */
const largestRss = (pid: number) => Math.max(rssOf(pid), ...childrenRss(pid));

/** Starts `command` and waits until it prints where it listens. */
function start(name: string, command: string, args: string[], env: NodeJS.ProcessEnv, pattern: RegExp, cwd = root): Promise<Running> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const timer = setTimeout(() => reject(new Error(`${name} did not start: ${output}`)), 300_000);
    let started = false;
    const onData = (chunk: Buffer) => {
      // Once started, its log (a line per request) is read and let go.
      if (started) return;
      output += chunk.toString();
      const match = pattern.exec(output);
      if (!match) return;
      started = true;
      clearTimeout(timer);
      resolve({
        name,
        base: match[1].replace('localhost', '127.0.0.1').replace(/\/$/, ''),
        pid: child.pid as number,
        rssMiB: () => largestRss(child.pid as number),
        workersRssMiB: () => childrenRss(child.pid as number),
        stop: () => new Promise((done) => {
          if (child.exitCode !== null) return done();
          child.once('close', () => done());
          child.kill('SIGTERM');
        }),
      });
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => reject(new Error(`${name} exited with ${code}: ${output}`)));
  });
}

/**
 * `rsr-api serve` with `workers` processes (by default one per CPU, as it runs by default). A load
 * generator is one caller with many connections: the per-caller limit on large pages is off, or
 * `limit=1000` would measure 429s.
 */
export function startOurs(databaseUrl: string, workers?: number, more: NodeJS.ProcessEnv = {}): Promise<Running> {
  const env = { DATABASE_URL: databaseUrl, PORT: '0', LARGE_PAGES_PER_CALLER: '0', ...(workers ? { WORKERS: String(workers) } : {}), ...more };
  return start('rsr-api', process.execPath, ['bin/rsr-api.mjs', 'serve'], env, /listening on (http:\/\/\S+?)\/rest\/v1\//);
}

/** The ceiling with as many processes as our server runs. */
export function startCeiling(bodyFile: string, workers: number): Promise<Running> {
  return start('ceiling', process.execPath, ['bench/ceiling.mjs', bodyFile], { WORKERS: String(workers) }, /listening on (http:\/\/\S+)/);
}

/** The Django REST Framework reference (../shared/peers/drf), in spec mode, under gunicorn. */
export function startDrf(directory: string, port: number, workers: number, env: NodeJS.ProcessEnv): Promise<Running> {
  return start('drf', './run.sh', [String(port), String(workers)], { PEER_SPEC_MODE: '1', ...env }, /Listening at: (http:\/\/\S+)/, directory);
}
