/**
 * The demo dataset: generated (demo/generate.ts, loaded only when asked for), written as files or
 * loaded into the database, and the demo users `serve --demo` creates on an empty database.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openEngine, type Engine } from '../store/engine/index.ts';
import { exportDataset } from '../store/dataset-files.ts';
import { importRecords, type DatasetSource } from '../store/import.ts';
import { migrate } from '../store/migrations.ts';
import { createToken, createUser, type NewUser } from '../store/users.ts';
import { say, summary } from './messages.ts';
import { importProgress, onTerminal, withProgress } from './progress.ts';

/**
 * The demo's records per entity, generated as they are imported. `counted`: each entity's records
 * are generated once beforehand to count them, for a bar's total and time left (a tenth of the
 * load's time at scale 1: worth it only to a person watching).
 */
async function demoSources(scale: number, seed: number, counted: boolean): Promise<DatasetSource[]> {
  const { generateDemo } = await import('../../demo/generate.ts');
  return generateDemo({ scale, seed }).map(({ entity, records }) => {
    let total = 0;
    if (counted) for (const _ of records) total += 1;
    return { file: entity, label: `demo ${entity}`, records, size: counted ? { total, unit: 'records' as const, done: (done: number) => done } : undefined };
  });
}

export async function loadDemo(engine: Engine, scale: number, seed: number, replace: boolean): Promise<void> {
  const started = Date.now();
  say(`Generating the demo dataset (scale ${scale}, seed ${seed}) into ${engine.location}…`);
  const sources = await demoSources(scale, seed, onTerminal());
  const counts = await withProgress('Loading', 'records', (tell) => importRecords(engine, sources, { replace, progress: importProgress(sources, tell) }));
  say(`Loaded in ${((Date.now() - started) / 1000).toFixed(1)} s: ${summary(counts)}`);
}

/**
 * Four users to try writes with at once: an administrator, and a project editor, an enumerator
 * and a plain user at the reporting organisation of a published project. Their keys are printed
 * this once, and only to a person at a terminal: a log collector must not keep an administrator's key.
 */
export async function createDemoUsers(engine: Engine, showKeys: boolean): Promise<void> {
  const partner = await engine.db
    .selectFrom('partnership as p')
    .innerJoin('project as j', 'j.id', 'p.project')
    .innerJoin('organisation as o', 'o.id', 'p.organisation')
    .select(['o.id as id', 'o.name as name', 'j.id as project'])
    .where('p.iati_organisation_role', '=', 101)
    .where('j.publishing_status', '=', 'published')
    .orderBy('j.id')
    .executeTakeFirstOrThrow();
  const organisation = partner.id as number;
  const people: [string, string, Omit<NewUser, 'email' | 'firstName' | 'lastName'>][] = [
    ['administrator', 'admin', { admin: true }],
    ['project editor', 'editor', { organisation, role: 'Project Editors' }],
    ['enumerator', 'enumerator', { organisation, role: 'Enumerators' }],
    ['user', 'user', { organisation, role: 'Users' }],
  ];
  say(`Demo users (organisation ${organisation} "${partner.name}" is a partner of project ${partner.project})${showKeys ? ', their keys shown this once' : ''}:`);
  for (const [title, name, options] of people) {
    const email = `${name}@demo.rsr-api.org`;
    await createUser(engine, { email, firstName: title.charAt(0).toUpperCase() + title.slice(1), lastName: 'Demo', ...options });
    if (showKeys) say(`  ${title.padEnd(15)} ${email.padEnd(28)} Authorization: Token ${await createToken(engine, email)}`);
    else say(`  ${title.padEnd(15)} ${email}`);
  }
  if (!showKeys) say('Keys are printed only to a terminal; make one with: rsr-api token create --email admin@demo.rsr-api.org');
}

/** `demo [DIR]`: the dataset as files, written through a scratch database so they hold exactly what an export gives. */
export async function writeDemoFiles(target: string, scale: number, seed: number, timeZone: string): Promise<void> {
  const scratchDir = mkdtempSync(join(tmpdir(), 'rsr-demo-'));
  const scratch = openEngine(`sqlite:${join(scratchDir, 'demo.sqlite')}`);
  try {
    await migrate(scratch);
    await loadDemo(scratch, scale, seed, false);
    const counts = await withProgress('Writing', 'records', (tell) => exportDataset(scratch, target, timeZone, tell));
    say(`Wrote ${target}: ${summary(counts)}`);
  } finally {
    await scratch.close();
    rmSync(scratchDir, { recursive: true, force: true });
  }
}
