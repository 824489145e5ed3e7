/** Running the real command line, as a user would. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';

const BIN = new URL('../../bin/rsr-api.mjs', import.meta.url).pathname;

/** A command run on a pseudo-terminal (util-linux `script`), as a person at a terminal runs it; all it drew. */
export function onTerminal(args: string[], env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('script', ['-qec', [process.execPath, BIN, ...args].join(' '), '/dev/null'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

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
  /** SIGTERM, and waits for the process to end. */
  stop(): Promise<void>;
  /** SIGKILL: the process ends at once, whatever it is doing. */
  kill(): Promise<void>;
  /** Sends a signal without waiting. */
  signal(name: NodeJS.Signals): void;
  /** The exit code once the process has ended. */
  exited: Promise<number | null>;
  /** With `terminal`: closes the terminal under the server; whether the server then ended (within 5 s). */
  closeTerminal(): Promise<boolean>;
}

/**
 * `rsr-api serve` on a free port; resolves once it says where it listens. With `terminal`, it
 * runs on a pseudo-terminal (util-linux `script`), as when a person starts it; `nodeArgs` are
 * Node's own options (`node --max-old-space-size=… bin/rsr-api.mjs serve`).
 */
export function startCliServer(args: string[], env: Record<string, string>, timeoutMs = 60_000, terminal = false, nodeArgs: string[] = []): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const command = terminal ? ['script', ['-qec', [process.execPath, ...nodeArgs, BIN, 'serve', ...args].join(' '), '/dev/null']] as const : [process.execPath, [...nodeArgs, BIN, 'serve', ...args]] as const;
    const child: ChildProcess = spawn(command[0], command[1], {
      env: { ...process.env, PORT: '0', WORKERS: '1', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const exited = new Promise<number | null>((done) => child.on('close', (code) => done(code)));
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`serve did not start: ${output}`));
    }, timeoutMs);
    // On a terminal the server is `script`'s child: signals go to it (script ends when it does).
    const serverPid = () => (terminal ? Number(execFileSync('pgrep', ['-P', String(child.pid)]).toString().trim().split('\n')[0]) : (child.pid as number));
    const send = (name: NodeJS.Signals) => process.kill(serverPid(), name);
    const signal = (name: NodeJS.Signals) => () =>
      new Promise<void>((done) => {
        if (child.exitCode !== null || child.signalCode !== null) return done();
        child.once('close', () => done());
        send(name);
      });
    const onData = (chunk: Buffer) => {
      output += chunk.toString().replaceAll('\r\n', '\n');
      const match = /listening on (http:\/\/\S+?)\/rest\/v1\//.exec(output);
      if (match) {
        clearTimeout(timer);
        resolve({
          base: match[1].replace('localhost', '127.0.0.1'), output: () => output, stop: signal('SIGTERM'), kill: signal('SIGKILL'),
          signal: (name) => void send(name), exited,
          async closeTerminal() {
            const server = serverPid();
            child.kill('SIGKILL'); // `script` gone: the terminal the server writes to is gone with it
            for (let waited = 0; waited < 5000; waited += 100) {
              await new Promise((done) => setTimeout(done, 100));
              try {
                process.kill(server, 0);
              } catch {
                return true;
              }
            }
            process.kill(server, 'SIGKILL');
            return false;
          },
        });
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

/** A command started and left running, to be killed by the test: its output so far and its end. */
export function spawnCli(args: string[], env: Record<string, string>): { output: () => string; kill(): Promise<number | null>; exited: Promise<number | null> } {
  const child = spawn(process.execPath, [BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)));
  return {
    output: () => output,
    exited,
    async kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      return exited;
    },
  };
}

/**
 * A new link written slowly to the server at `base` with an administrator's `key`: its headers
 * and part of its body now, the rest when asked (a request in flight for as long as a test needs).
 */
export function slowLinkWrite(base: string, key: string, url = 'https://example.org/in-flight') {
  const body = JSON.stringify({ project: 1, url });
  const socket = net.connect(Number(new URL(base).port), '127.0.0.1');
  let answer = '';
  socket.on('data', (chunk: Buffer) => (answer += chunk.toString()));
  const ended = new Promise<string>((resolve) => socket.on('close', () => resolve(answer)));
  socket.write(`POST /rest/v1/link/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Token ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, 10)}`);
  // The rest written, not ended: a client half-closing would tell the server it is gone.
  return { finish: () => socket.write(body.slice(10)), ended, destroy: () => socket.destroy() };
}
