/**
 * The command-line options a thread may be started with. V8's heap options (an operator's
 * `node --max-old-space-size=2048 bin/rsr-api.mjs serve`) hold for every thread of the process
 * already, and a thread given them explicitly is refused (ERR_WORKER_INVALID_EXEC_ARGV): every
 * report download then failed.
 */
const HEAP_OPTION = /^--(?:max|min|initial)[-_](?:old|semi|heap)[-_]space[-_]size|^--(?:max|initial)[-_]heap[-_]size|^--heap[-_]growing[-_]percent/;

export const threadArguments = (args: readonly string[]): string[] => args.filter((arg) => !HEAP_OPTION.test(arg));
