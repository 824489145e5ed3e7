/** The servers a benchmark run measures, each in its own process, on 127.0.0.1 only. */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';

export interface Running {
  name: string;
  base: string;
  pid: number;
  /** Resident memory of the server process, in MiB. */
  rssMiB(): number;
  stop(): Promise<void>;
}

const root = new URL('..', import.meta.url).pathname;

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
        rssMiB: () => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024,
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

export function startOurs(databaseUrl: string): Promise<Running> {
  return start('rsr-api', process.execPath, ['bin/rsr-api.mjs', 'serve'], { DATABASE_URL: databaseUrl, PORT: '0' }, /listening on (http:\/\/\S+?)\/rest\/v1\//);
}

export function startCeiling(bodyFile: string): Promise<Running> {
  return start('ceiling', process.execPath, ['bench/ceiling.mjs', bodyFile], {}, /listening on (http:\/\/\S+)/);
}

/** The Django REST Framework reference (../shared/peers/drf), in spec mode, under gunicorn. */
export function startDrf(directory: string, port: number, workers: number, env: NodeJS.ProcessEnv): Promise<Running> {
  return start('drf', './run.sh', [String(port), String(workers)], { PEER_SPEC_MODE: '1', ...env }, /Listening at: (http:\/\/\S+)/, directory);
}
