/**
 * The served OpenAPI document as third-party tools take it: Spectral (`spectral:oas`,
 * .spectral.yaml) and Redocly (`recommended`, redocly.yaml) find nothing to report, and a client
 * written against types openapi-typescript generates from it (test/typed-client/client.ts, with
 * openapi-fetch) type-checks strictly and does what it says against a real server. Each tool
 * runs as a child process, as a third party would run it, on the document the server serves.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createToken } from '../src/store/users.ts';
import { request, testStores, useServer } from './support/server.ts';

const ROOT = new URL('../', import.meta.url).pathname;
const bin = (name: string) => join(ROOT, 'node_modules', '.bin', name);

interface Finished {
  code: number;
  stdout: string;
  stderr: string;
}

/** A command's exit code and output (a non-zero exit is an answer here, not an error). */
function run(command: string, args: string[], timeout = 120_000): Promise<Finished> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd: ROOT, timeout, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, NO_COLOR: '1' } }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') return reject(error);
      resolve({ code: typeof error?.code === 'number' ? error.code : 0, stdout, stderr });
    });
  });
}

/** Problems as `severity rule: message at place`, one a line, for a failing assertion to show. */
const listed = (problems: string[]) => (problems.length ? `\n${problems.join('\n')}` : '');

const [store] = testStores();

describe(`OpenAPI tools (${store.name})`, () => {
  const server = useServer(store);
  let dir: string;
  let documentFile: string;

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rsr-openapi-'));
    const answer = await request(server.base, '/rest/v1/openapi.json');
    assert.equal(answer.status, 200);
    documentFile = join(dir, 'openapi.json');
    writeFileSync(documentFile, answer.text);
  });

  after(() => rmSync(dir, { recursive: true, force: true }));

  test('Spectral (spectral:oas) reports no error and no warning', async () => {
    const output = join(dir, 'spectral.json');
    const finished = await run(bin('spectral'), ['lint', '--ruleset', join(ROOT, '.spectral.yaml'), '--format', 'json', '--output', output, documentFile]);
    const results: { code: string; message: string; severity: number; path: string[] }[] = JSON.parse(readFileSync(output, 'utf8'));
    const described = results.map((result) => `${['error', 'warning', 'info', 'hint'][result.severity]} ${result.code}: ${result.message} at ${result.path.join('.')}`);
    assert.deepEqual(described, [], `Spectral:${listed(described)}`);
    assert.equal(finished.code, 0, finished.stderr);
  });

  test('Redocly (recommended) reports no error and no warning', async () => {
    const finished = await run(bin('redocly'), ['lint', '--config', join(ROOT, 'redocly.yaml'), '--format', 'json', '--max-problems', '100000', documentFile]);
    const report: { problems: { ruleId: string; severity: string; message: string; location: { pointer: string }[] }[] } = JSON.parse(finished.stdout);
    const described = report.problems.map((problem) => `${problem.severity} ${problem.ruleId}: ${problem.message} at ${problem.location[0]?.pointer}`);
    assert.deepEqual(described, [], `Redocly:${listed(described)}`);
    assert.equal(finished.code, 0, finished.stderr);
  });

  test('a client typed by openapi-typescript from the document type-checks strictly and lists, filters, reads, creates, changes and deletes', async () => {
    // Generated from the document of the day, never kept: the types cannot fall behind it. A
    // default is what the server fills in when a field is left out: optional for the client.
    const types = join(dir, 'schema.d.ts');
    const generated = await run(bin('openapi-typescript'), [documentFile, '--output', types, '--default-non-nullable', 'false']);
    assert.equal(generated.code, 0, generated.stderr);
    const config = join(dir, 'tsconfig.json');
    writeFileSync(config, JSON.stringify({
      extends: join(ROOT, 'test/typed-client/tsconfig.json'),
      compilerOptions: { paths: { 'rsr-api-openapi': [types] } },
      files: [join(ROOT, 'test/typed-client/client.ts')],
    }));
    const checked = await run(bin('tsc'), ['--project', config, '--strict', '--noEmit']);
    assert.equal(checked.stdout + checked.stderr, '', 'tsc prints nothing');
    assert.equal(checked.code, 0);

    const key = await createToken(server.engine, 'ana@example.org');
    const ran = await run(process.execPath, ['--import', 'tsx', join(ROOT, 'test/typed-client/client.ts'), server.base, key]);
    assert.equal(ran.code, 0, ran.stderr);
    assert.deepEqual(JSON.parse(ran.stdout), {
      // `ordering=-project,id`: project 2's link, then project 1's.
      list: { count: 2, next: null, ids: [2, 1] },
      filtered: ['1 https://akvo.org/water Water page'],
      created: { status: 201, location: true, kind: 'E', caption: 'Typed' },
      read: { same: true, url: 'https://example.org/typed-client' },
      patched: { kind: 'A', caption: 'Typed, then patched', url: 'https://example.org/typed-client' },
      deleted: 204,
      gone: { status: 404, detail: 'Not found.' },
    });
  });
});
