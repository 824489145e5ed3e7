/**
 * `npm run bench:report-rounds`: does memory come back after report downloads? A server of one
 * process (WORKERS=1: no primary to give it ops/allocator.ts's settings) on the demo at scale 1
 * takes five rounds of the eleven heavy downloads of the largest organisation, and its RSS is
 * read 40 s after each round (its report thread ended after 30 s unused): once with glibc's
 * default, once with the settings the workers start with.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { adminKeys, demoDatabase, downloadAll, DOWNLOADS, largestOrganisation } from './report-downloads.ts';
import { ALLOCATOR_SETTINGS } from '../src/ops/allocator.ts';
import { startOurs } from './servers.ts';

const ROUNDS = 5;
const { file, url } = demoDatabase(1);
const keys = adminKeys(url, DOWNLOADS.length);
const organisation = largestOrganisation(file);

console.log(`| RSS MiB | at start | ${Array.from({ length: ROUNDS }, (_, round) => `after round ${round + 1}`).join(' | ')} |\n|---|${'---:|'.repeat(ROUNDS + 1)}`);
for (const [arm, env] of [["glibc's default", {}], ['as workers start', ALLOCATOR_SETTINGS]] as const) {
  const server = await startOurs(url, 1, env);
  try {
    await sleep(3000);
    const rss = () => String(Math.round(server.rssMiB()));
    const row = [`| ${arm} | ${rss()}`];
    for (let round = 1; round <= ROUNDS; round += 1) {
      const downloads = await downloadAll(server, organisation, keys);
      if (downloads.some((download) => download.status !== 200)) throw new Error(`round ${round}: ${downloads.map((download) => download.status).join(',')}`);
      await sleep(40_000);
      row.push(rss());
    }
    console.log(`${row.join(' | ')} |`);
  } finally {
    await server.stop();
  }
}
