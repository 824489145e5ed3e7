/**
 * Every example of README.md (and of docs/*.md) answers with data, run as a newcomer runs it:
 * against `npm start`'s server (`serve --demo`: the deterministic demo data), with the real curl,
 * `localhost:<port>` pointed at the server and `KEY` replaced by a demo user's key (the project
 * editor's for writes, the plain user's for everything else: "the key of any demo user").
 *
 * - A list answers 2xx with records (count > 0, results not empty), and the page does not start
 *   with an empty value of the field it is ordered by.
 * - XML and CSV hold records; a record, the index and a probe are non-empty.
 * - A list that has a next page names it in its `Link` header too, as its body does.
 * - A whole-list download (`/download/<list>.csv` or `.xlsx`) holds as many records as its
 *   `X-Total-Count` says, and more than none.
 * - The writes run in order: the POST creates the id the PATCH and DELETE name, and the DELETE
 *   leaves the record gone.
 * - A report download is a file with data: an Excel workbook has rows below a sheet's header row;
 *   a PDF or Word report says more than the same report for a period with nothing in it (2999).
 * - A URL with braces or brackets needs `-g`: curl would read them as its own URL patterns.
 * - The explorer and API addresses the prose gives (`/explore/…?…`) answer with records too.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import JSZip from 'jszip';
import { getDocument } from 'pdfjs-dist/legacy/build/pdf.mjs';
import { REPORT_DOWNLOADS } from '../src/reports/catalogue.ts';
import { runCli, startCliServer, type RunningServer } from './support/cli.ts';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- answers read back

const ROOT = new URL('../', import.meta.url).pathname;
const DOCUMENTS = ['README.md', ...(existsSync(join(ROOT, 'docs')) ? readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md')).map((name) => `docs/${name}`) : [])];

interface Example {
  /** `README.md:22` */
  where: string;
  command: string;
  /** The variable assignments of its block before it (`K="Authorization: Token KEY"; R=…`). */
  preamble: string[];
}

const ASSIGNMENTS = /^(\s*[A-Za-z_]\w*=("[^"]*"|'[^']*'|[^\s;"']*)\s*;?)+\s*$/;

/** The curl commands of a Markdown file's shell blocks (continuation lines joined), in order. */
export function curlExamples(markdown: string, file: string): Example[] {
  const examples: Example[] = [];
  for (const block of markdown.matchAll(/^```(?:sh|bash|shell|console)\n([\s\S]*?)^```/gm)) {
    const firstLine = markdown.slice(0, block.index).split('\n').length + 1;
    const lines = block[1].split('\n');
    const preamble: string[] = [];
    for (let index = 0; index < lines.length; index += 1) {
      const start = index;
      let command = lines[index];
      while (command.endsWith('\\') && index + 1 < lines.length) command = `${command.slice(0, -1)} ${lines[(index += 1)].trim()}`;
      if (ASSIGNMENTS.test(command)) preamble.push(command);
      else if (/^\s*curl\s/.test(command)) examples.push({ where: `${file}:${firstLine + start}`, command: command.trim(), preamble: [...preamble] });
    }
  }
  return examples;
}

/** Explorer and API addresses with a query in the prose's inline code: `/explore/budget_item/?…`. */
export function addressExamples(markdown: string, file: string): { where: string; address: string }[] {
  return [...markdown.matchAll(/`(\/(?:explore|rest\/v1|api\/v1)\/[a-z_]+\/\?[^`\s]+)`/g)].map((match) => ({
    where: `${file}:${markdown.slice(0, match.index).split('\n').length}`,
    address: match[1],
  }));
}

const documents = DOCUMENTS.map((file) => ({ file, text: readFileSync(join(ROOT, file), 'utf8') }));
const EXAMPLES = documents.flatMap(({ file, text }) => curlExamples(text, file));
const ADDRESSES = documents.flatMap(({ file, text }) => addressExamples(text, file));

/**
 * curl as the examples call it, in bash: each call's arguments (after the shell's quoting and
 * variables) and headers kept for the test; a URL with braces or brackets refused without -g.
 */
const CURL = String.raw`
curl() {
  printf '%s\0' "$@" > "$EXAMPLE_ARGS"
  local arg glob='' off=''
  for arg in "$@"; do
    case "$arg" in -g|--globoff|-[A-Za-z]*g*) case "$arg" in --*) [ "$arg" = --globoff ] && off=1 ;; *) off=1 ;; esac ;; esac
    case "$arg" in http://*|https://*) case "$arg" in *[][{}]*) glob=1 ;; esac ;; esac
  done
  if [ -n "$glob" ] && [ -z "$off" ]; then echo "curl without -g reads {} and [] in a URL as its own patterns" >&2; return 97; fi
  command curl --silent --show-error --max-time 60 --dump-header "$EXAMPLE_HEADERS" "$@"
}
`;

interface Run {
  code: number;
  stdout: Buffer;
  stderr: string;
  status: number;
  headers: Record<string, string>;
  args: string[];
  /** The files the command wrote (downloads), by name. */
  files: Map<string, Buffer>;
}

function runShell(script: string): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'rsr-example-'));
  const env = { ...process.env, EXAMPLE_ARGS: join(dir, '.args'), EXAMPLE_HEADERS: join(dir, '.headers') };
  const cwd = join(dir, 'work');
  mkdirSync(cwd);
  return new Promise((resolve) => {
    execFile('bash', ['-c', `${CURL}\n${script}`], { cwd, env, encoding: 'buffer', maxBuffer: 256 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      const headerText = existsSync(env.EXAMPLE_HEADERS) ? readFileSync(env.EXAMPLE_HEADERS, 'latin1') : '';
      const last = headerText.split(/\r?\n\r?\n/).filter((block) => block.startsWith('HTTP/')).at(-1) ?? '';
      const headers = Object.fromEntries(last.split(/\r?\n/).slice(1).map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({
        code: error ? (typeof error.code === 'number' ? error.code : 1) : 0,
        stdout,
        stderr: stderr.toString(),
        status: Number(/^HTTP\/[\d.]+ (\d{3})/.exec(last)?.[1] ?? 0),
        headers,
        args: existsSync(env.EXAMPLE_ARGS) ? readFileSync(env.EXAMPLE_ARGS, 'utf8').split('\0').slice(0, -1) : [],
        files: new Map(readdirSync(cwd).map((name) => [name, readFileSync(join(cwd, name))])),
      });
    });
  });
}

/** The rows below the header row (the first with three cells or more) of a workbook's fullest sheet. */
async function dataRows(bytes: Buffer): Promise<number> {
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  let most = 0;
  for (const sheet of book.worksheets) {
    const filled: number[] = [];
    sheet.eachRow((row) => filled.push((row.values as unknown[]).filter((value) => value !== null && value !== undefined && value !== '').length));
    const header = filled.findIndex((cells) => cells >= 3);
    if (header >= 0) most = Math.max(most, filled.slice(header + 1).filter((cells) => cells > 0).length);
  }
  return most;
}

async function pdfText(bytes: Buffer): Promise<string> {
  const document = await getDocument({ data: new Uint8Array(bytes), isEvalSupported: false, useSystemFonts: false }).promise;
  let text = '';
  for (let number = 1; number <= document.numPages; number += 1) text += `${(await (await document.getPage(number)).getTextContent()).items.map((item) => ('str' in item ? item.str : '')).join(' ')}\n`;
  await document.destroy();
  return text;
}

async function wordText(bytes: Buffer): Promise<string> {
  const xml = await (await JSZip.loadAsync(bytes)).file('word/document.xml')!.async('string');
  return [...xml.matchAll(/<w:t(?: [^>]*)?>([^<]*)<\/w:t>/g)].map((match) => match[1]).join(' ');
}

const reportText = (name: string, bytes: Buffer) => (name.endsWith('.pdf') ? pdfText(bytes) : wordText(bytes));

/** A page of a list says something: records, and not an empty value first in the field it is ordered by. */
function assertRecords(where: string, url: URL, records: Json[], count: number) {
  assert.ok(count > 0, `${where}: count ${count}`);
  assert.ok(records.length > 0, `${where}: an empty page`);
  const ordering = url.searchParams.get('ordering')?.split(',')[0]?.replace(/^-/, '');
  if (ordering) assert.notEqual(records[0][ordering] ?? null, null, `${where}: the page starts with an empty ${ordering} (add ${ordering}__isnull=False, or say so)`);
}

describe('the examples of README.md and docs/*.md, on the demo data', () => {
  let server: RunningServer;
  const keys: Record<string, string> = {};
  const database = `sqlite:${join(mkdtempSync(join(tmpdir(), 'rsr-examples-')), 'demo.sqlite')}`;

  before(async () => {
    server = await startCliServer(['--demo'], { DATABASE_URL: database, SHUTDOWN_TIMEOUT: '5' }, 120_000);
    for (const role of ['editor', 'user']) {
      const made = await runCli(['token', 'create', '--email', `${role}@demo.rsr-api.org`], { DATABASE_URL: database });
      assert.equal(made.code, 0, made.stderr);
      keys[role] = made.stdout.trim();
    }
  });
  after(() => server?.stop());

  test('the documents have examples to run: curl commands, report downloads, writes', () => {
    assert.ok(EXAMPLES.length >= 20, `${EXAMPLES.length} curl examples`);
    assert.ok(EXAMPLES.some((example) => example.command.includes('py-reports') || example.preamble.some((line) => line.includes('py-reports'))));
    assert.ok(EXAMPLES.some((example) => / -X DELETE /.test(example.command)));
  });

  test('curl refuses a URL with braces without -g, here as in a terminal', async () => {
    const url = `${server.base}/rest/v1/link/?filter={'caption__icontains':'report'}`;
    const without = await runShell(`curl "${url}"`);
    assert.equal(without.code, 97, without.stderr);
    // What the guard spares a reader: curl's own globbing drops the braces, and the API refuses what is left.
    const bare = await runShell(`command curl -s -o /dev/null -w '%{http_code}' "${url}"`);
    assert.equal(bare.stdout.toString(), '400');
    const withG = await runShell(`curl -g "${url}"`);
    assert.equal(withG.status, 200, withG.stderr);
  });

  for (const example of EXAMPLES) {
    test(`${example.where} ${example.command}`, async () => {
      const writes = / -X (POST|PUT|PATCH|DELETE) | -d /.test(` ${example.command} `);
      const key = writes ? keys.editor : keys.user;
      const local = (text: string) => text.replace(/http:\/\/localhost:\d+/g, server.base).replace(/\bKEY\b/g, key);
      const script = [...example.preamble, example.command].map(local).join('\n');
      // A request the service sheds while it is busy (503, Retry-After) is sent again, as a client would.
      let run = await runShell(script);
      for (let tries = 0; run.status === 503 && tries < 20; tries += 1) {
        await new Promise((done) => setTimeout(done, 1000));
        run = await runShell(script);
      }
      assert.equal(run.code, 0, `${example.where}: curl failed: ${run.stderr}`);
      assert.ok(run.status >= 200 && run.status < 300, `${example.where}: ${run.status} ${run.stdout.toString().slice(0, 300)}`);
      const target = new URL(run.args.find((arg) => /^https?:\/\//.test(arg))!);
      const method = run.args.includes('-X') ? run.args[run.args.indexOf('-X') + 1] : run.args.includes('-d') ? 'POST' : 'GET';

      if (method === 'DELETE') {
        assert.equal(run.status, 204);
        const gone = await fetch(target, { headers: { authorization: `Token ${key}` } });
        assert.equal(gone.status, 404, `${example.where}: the record is gone`);
        return;
      }
      if (run.files.size > 0) {
        const [[name, bytes]] = [...run.files];
        assert.ok(bytes.length > 0, `${example.where}: ${name} is empty`);
        // A whole list says how many records it holds: all of them are in the file.
        const total = run.headers['x-total-count'] === undefined ? null : Number(run.headers['x-total-count']);
        if (name.endsWith('.xlsx')) {
          const rows = await dataRows(bytes);
          assert.ok(rows > 0, `${example.where}: ${name} has no rows below its header`);
          if (total !== null) assert.equal(rows, total, `${example.where}: ${name} holds ${rows} records, X-Total-Count says ${total}`);
          return;
        }
        if (name.endsWith('.csv')) {
          const delimiter = target.searchParams.get('delimiter') ?? ',';
          const rows = parse(bytes, { bom: true, delimiter: delimiter === 'tab' ? '\t' : delimiter, columns: true, relax_column_count: false }) as unknown[];
          assert.ok(rows.length > 0, `${example.where}: ${name} has no rows below its header`);
          if (total !== null) assert.equal(rows.length, total, `${example.where}: ${name} holds ${rows.length} records, X-Total-Count says ${total}`);
          return;
        }
        assert.match(name, /\.(pdf|docx)$/);
        // The same report for a period with nothing in it: the example's says more (or the report reads no dates).
        const report = REPORT_DOWNLOADS.find((download) => target.pathname.endsWith(`/${download.path}/`));
        assert.ok(report, `${example.where}: a report of the catalogue`);
        const empty = new URL(target);
        empty.searchParams.set(report.dates[0], '2999-01-01');
        empty.searchParams.delete(report.dates[1]);
        const baseline = await fetch(empty, { headers: { authorization: `Token ${key}` } });
        assert.equal(baseline.status, 200);
        const [text, nothing] = [await reportText(name, bytes), await reportText(name, Buffer.from(await baseline.arrayBuffer()))];
        assert.ok(text.length > 500, `${example.where}: ${name} says little: ${text}`);
        assert.ok(text.length > nothing.length || text === nothing, `${example.where}: ${name} says no more than for a period with no data`);
        return;
      }
      const body = run.stdout.toString();
      assert.ok(body.length > 0, `${example.where}: an empty answer`);
      const type = run.headers['content-type'] ?? '';
      if (type.startsWith('application/xml')) {
        assert.ok(Number(/<count>(\d+)<\/count>/.exec(body)?.[1]) > 0 && body.includes('<list-item>'), `${example.where}: no records in ${body.slice(0, 200)}`);
      } else if (type.startsWith('text/csv')) {
        assert.ok(body.trim().split('\n').length > 1, `${example.where}: a CSV of its header alone`);
      } else {
        assert.match(type, /^application\/json/);
        const answer = JSON.parse(body) as Json;
        if (Array.isArray(answer.results)) {
          assertRecords(example.where, target, answer.results, answer.count);
          if (answer.next) assert.ok(run.headers.link?.includes(`<${answer.next}>; rel="next"`), `${example.where}: Link ${run.headers.link} does not name ${answer.next}`);
        }
        else if (Array.isArray(answer.objects)) assertRecords(example.where, target, answer.objects, answer.meta.total_count);
        else assert.ok(Object.keys(answer).length > 0, `${example.where}: an empty object`);
        if (method === 'POST') assert.ok(run.headers.location?.endsWith(`/${answer.id}/`), `${example.where}: Location ${run.headers.location}`);
      }
    });
  }

  for (const { where, address } of ADDRESSES) {
    test(`${where} ${address}`, async () => {
      const url = new URL(address.replace(/^\/explore\//, '/rest/v1/'), server.base);
      const answer = await fetch(url, { headers: { accept: 'application/json' } });
      assert.equal(answer.status, 200, where);
      const body = (await answer.json()) as Json;
      if (url.pathname.startsWith('/api/')) assertRecords(where, url, body.objects, body.meta.total_count);
      else assertRecords(where, url, body.results, body.count);
    });
  }
});
