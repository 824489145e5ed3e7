/** Running the real command line, as a user would. */
import { spawn, type ChildProcess } from 'node:child_process';

const BIN = new URL('../../bin/rsr-api.mjs', import.meta.url).pathname;

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

export interface RunningServer {
  base: string;
  output: () => string;
  stop(): Promise<void>;
}

/** `rsr-api serve` on a free port; resolves once it says where it listens. */
export function startCliServer(args: string[], env: Record<string, string>, timeoutMs = 60_000): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(process.execPath, [BIN, 'serve', ...args], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`serve did not start: ${output}`));
    }, timeoutMs);
    const stop = () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null) return done();
        child.once('close', () => done());
        child.kill('SIGTERM');
      });
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+?)\/rest\/v1\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({ base: match[1].replace('localhost', '127.0.0.1'), output: () => output, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.on('close', (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited with ${code}: ${output}`));
    });
  });
}
