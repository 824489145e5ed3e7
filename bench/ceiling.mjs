// The ceiling: a bare node:http server answering every request with one prebuilt body (a file),
// as fast as Node can answer at all. Our page-1 throughput is reported as a fraction of it.
import { readFileSync } from 'node:fs';
import http from 'node:http';

const body = readFileSync(process.argv[2]);
const server = http.createServer((request, response) => {
  response.writeHead(200, { 'content-type': 'application/json', 'content-length': body.length, vary: 'Accept' });
  response.end(body);
});
server.listen(Number(process.argv[3] ?? 0), '127.0.0.1', () => console.log(`listening on http://127.0.0.1:${server.address().port}/`));
