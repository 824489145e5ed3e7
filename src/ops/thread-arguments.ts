/**
 * The command-line options a thread is started with: of this process's, only those that load code
 * or choose how modules resolve (`--import tsx` runs the sources), and source maps. A thread given
 * any other may refuse it (ERR_WORKER_INVALID_EXEC_ARGV) and every report download then fails:
 * V8's heap options (an operator's `--max-old-space-size`, which holds for every thread already),
 * per-process ones (`--stack-trace-limit`), and the defaults Node 24's test runner gives each file.
 */
const WITH_VALUE = new Set(['--import', '--require', '-r', '--loader', '--experimental-loader', '--conditions', '-C']);
const FLAGS = new Set(['--enable-source-maps']);

export function threadArguments(args: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    const arg = args[index];
    const [name] = arg.split('=', 1);
    if (FLAGS.has(arg)) kept.push(arg);
    else if (WITH_VALUE.has(name)) {
      // `--import=tsx` is one argument, `--import tsx` two.
      if (arg.includes('=') || index + 1 === args.length) kept.push(arg);
      else kept.push(arg, args[(index += 1)]);
    }
  }
  return kept;
}
