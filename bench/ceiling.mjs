// The ceiling: a bare node:http server answering every request with one prebuilt body (a file),
// as fast as Node can answer at all, from WORKERS processes (node:cluster) as ours runs. Our
// page-1 throughput is reported as a fraction of it.
import cluster from 'node:cluster';
import { readFileSync } from 'node:fs';
import http from 'node:http';

const workers = Number(process.env.WORKERS ?? 1);
if (cluster.isPrimary && workers > 1) {
  let listening = 0;
  cluster.on('listening', (worker, address) => {
    listening += 1;
    if (listening === workers) console.log(`listening on http://127.0.0.1:${address.port}/`);
  });
  for (let index = 0; index < workers; index += 1) cluster.fork();
  process.on('SIGTERM', () => {
    for (const worker of Object.values(cluster.workers)) worker.kill();
    process.exit(0);
  });
} else {
  const body = readFileSync(process.argv[2]);
  const server = http.createServer((request, response) => {
    response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, vary: 'Accept' });
    response.end(body);
  });
  server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => {
    if (cluster.isPrimary) console.log(`listening on http://127.0.0.1:${server.address().port}/`);
  });
}
