/** `backup FILE` and `restore FILE [--replace]`: what they did, said on stderr; their progress shown (progress.ts). */
import { statSync } from 'node:fs';
import { maskUrl } from '../ops/redact.ts';
import { backupDatabase, restoreDatabase } from '../store/backup.ts';
import type { Engine } from '../store/engine/index.ts';
import { say, summary, UsageError } from './messages.ts';
import { amount, withProgress } from './progress.ts';

const seconds = (started: number) => ((Date.now() - started) / 1000).toFixed(1);
const named = (engine: Engine) => `${engine.name} ${maskUrl(engine.location)}`;

export async function backupCommand(engine: Engine, file: string | undefined): Promise<void> {
  if (!file) throw new UsageError('backup needs the file to write', 'backup');
  const started = Date.now();
  // SQLite's file is copied page by page (bytes); PostgreSQL's tables record by record.
  const counts = await withProgress('Backing up', engine.name === 'sqlite' ? 'bytes' : 'records', (tell) => backupDatabase(engine, file, tell));
  say(`Backed up ${named(engine)} to ${file} (${amount(statSync(file).size, 'bytes')}) in ${seconds(started)} s: ${summary(counts)}`);
  say(`Restore it with: rsr-api restore ${file}`);
}

export async function restoreCommand(engine: Engine, file: string | undefined, replace: boolean): Promise<void> {
  if (!file) throw new UsageError('restore needs the backup file to load', 'restore');
  const started = Date.now();
  const { counts, replaced } = await withProgress('Restoring', 'records', (tell) => restoreDatabase(engine, file, { replace, progress: tell }));
  say(`Restored ${file} into ${named(engine)}${replaced ? ', replacing all it held' : ''} in ${seconds(started)} s: ${summary(counts)}`);
}
