// Replays the mix's reads one at a time against a running server; prints the slowest. usage: node --import tsx .scratch/mixprof.ts BASE N
import { mixedData, mixedRead, randomSource } from '../bench/mixed.ts';
const [base, n = '1500'] = process.argv.slice(2);
const data = await mixedData(base, '');
const random = randomSource(14);
const timings: { path: string; ms: number; status: number }[] = [];
for (let i = 0; i < Number(n); i++) {
  const path = mixedRead(data, random, i + Number(process.env.OFFSET ?? 100000));
  const t = performance.now();
  const r = await fetch(base + path);
  await r.arrayBuffer();
  timings.push({ path, ms: performance.now() - t, status: r.status });
}
timings.sort((a, b) => b.ms - a.ms);
const total = timings.reduce((s, t) => s + t.ms, 0);
console.log('total ms', Math.round(total), 'mean', (total / timings.length).toFixed(1), 'p50', timings[Math.floor(timings.length / 2)].ms.toFixed(1), 'p99', timings[Math.floor(timings.length / 100)].ms.toFixed(1));
const byKind = new Map<string, number>();
for (const t of timings) {
  const u = new URL(base + t.path);
  const kind = u.pathname.split('/')[3] + ' ' + [...u.searchParams.keys()].filter((k) => k !== '_' && k !== 'page').map((k) => (k === 'ordering' ? 'ordering' : k)).join('&') + (u.searchParams.has('page') ? ' paged' : '');
  byKind.set(kind, (byKind.get(kind) ?? 0) + t.ms);
}
console.log([...byKind].sort((a, b) => b[1] - a[1]).slice(0, 15).map(([k, v]) => `${Math.round(v)} ms  ${k}`).join('\n'));
for (const t of timings.slice(0, 25)) console.log(Math.round(t.ms), t.status, t.path);
