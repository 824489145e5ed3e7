/**
 * The explorer's only way to the data: the service's own API, as any client reads it. The token
 * a person signs in with is kept in this tab's session storage and sent as `Authorization: Token`.
 * A request that cannot reach the service, or that the service refuses, is an Error with a
 * message a person can read (the API's own `detail` when it gives one), never a silent wait.
 */
import { t } from './i18n';

const TOKEN_KEY = 'rsr-api.token';

export const session = {
  token: (): string | null => sessionStorage.getItem(TOKEN_KEY),
  signIn: (token: string) => sessionStorage.setItem(TOKEN_KEY, token),
  signOut: () => sessionStorage.removeItem(TOKEN_KEY),
};

export interface Answer<T = unknown> {
  status: number;
  ok: boolean;
  body: T;
}

function headers(extra: Record<string, string> = {}, token = session.token()): Record<string, string> {
  return { accept: 'application/json', ...(token ? { authorization: `Token ${token}` } : {}), ...extra };
}

/** The message of an error answer: its `detail`, or its messages per field. */
export function messageOf(body: unknown, status: number): string {
  if (body && typeof body === 'object' && Object.keys(body).length > 0) {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return record.detail;
    return Object.entries(record).map(([key, value]) => `${key}: ${([] as unknown[]).concat(value).join(' ')}`).join('; ');
  }
  return t('error.status', status);
}

/** A refusal of the service (any answer but 2xx): its status, and how long it asks to be left alone. */
export class Refused extends Error {
  constructor(
    readonly status: number,
    body: unknown,
    readonly retryAfter: number | null = null,
  ) {
    const hints = [retryAfter !== null ? t('error.retryAfter', retryAfter) : '', (status === 401 || status === 403) && !session.token() ? t('error.signIn') : ''];
    super([messageOf(body, status), ...hints].filter(Boolean).join(' '));
  }
}

/** fetch, with a network failure (no answer at all) said in words; a cancelled request stays an AbortError. */
async function send(path: string, init: RequestInit): Promise<Response> {
  try {
    return await fetch(path, init);
  } catch (failure) {
    if (failure instanceof DOMException && failure.name === 'AbortError') throw failure;
    throw new Error(t('error.network'), { cause: failure });
  }
}

/** A body as JSON, or null when it is none (an empty answer, or a proxy's HTML page). */
async function jsonOf(response: Response): Promise<unknown> {
  const text = await response.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

async function refusal(response: Response): Promise<Refused> {
  const seconds = Number(response.headers.get('retry-after'));
  return new Refused(response.status, await jsonOf(response), response.headers.has('retry-after') && Number.isFinite(seconds) ? seconds : null);
}

/** A JSON request to the API; the answer's body parsed (null when it has none). `token` tries a key not yet signed in with. */
export async function call<T = unknown>(path: string, method = 'GET', body?: unknown, token = session.token()): Promise<Answer<T>> {
  const response = await send(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }, token),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: response.status, ok: response.ok, body: (await jsonOf(response)) as T };
}

/** A read that a view cannot do without: its body, or a Refused error. */
export async function get<T>(path: string): Promise<T> {
  const response = await send(path, { headers: headers() });
  if (!response.ok) throw await refusal(response);
  return (await jsonOf(response)) as T;
}

const filenameOf = (response: Response, fallback: string) => /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? fallback;

/** Hands a file to the browser to save, by an object URL (the file was fetched with the token: a plain link would go without it). */
function save(file: Blob, filename: string): void {
  const url = URL.createObjectURL(file);
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
}

/** A file the API makes (a report), fetched with the token and handed to the browser as a download. */
export async function download(path: string): Promise<{ ok: true; filename: string } | { ok: false; message: string }> {
  try {
    const response = await send(path, { headers: headers({ accept: '*/*' }) });
    if (!response.ok) return { ok: false, message: (await refusal(response)).message };
    const filename = filenameOf(response, 'report');
    save(await response.blob(), filename);
    return { ok: true, filename };
  } catch (failure) {
    return { ok: false, message: failure instanceof Error ? failure.message : String(failure) };
  }
}

/** How far a streamed file has come: bytes, and for a CSV its records and how many there are to come. */
export interface Received {
  bytes: number;
  rows: number | null;
  total: number | null;
}

/**
 * Records in a CSV as it streams: a line break outside quotes ends one (a quoted value may hold
 * line breaks; "" inside quotes toggles twice, so it changes nothing). The header is not one.
 */
export function csvRows() {
  let quoted = false;
  let ends = 0;
  let last = 0x0a;
  return {
    add(chunk: Uint8Array): void {
      for (const byte of chunk) {
        if (byte === 0x22) quoted = !quoted;
        else if (byte === 0x0a && !quoted) ends += 1;
      }
      if (chunk.length) last = chunk[chunk.length - 1];
    },
    /** Records so far; at the end, with a last line that has no line break. */
    count: (done = false) => Math.max(0, ends + (done && last !== 0x0a ? 1 : 0) - 1),
  };
}

/**
 * A whole list as a file (GET /download/<list>.csv or .xlsx), streamed by the service: read as it
 * comes (`progress` after each piece), then saved by the browser under the name the service gives.
 */
export async function downloadList(path: string, progress: (received: Received) => void, signal: AbortSignal): Promise<{ filename: string; rows: number | null }> {
  const response = await send(path, { headers: headers({ accept: '*/*' }), signal });
  if (!response.ok) throw await refusal(response);
  const stated = Number(response.headers.get('x-total-count') ?? Number.NaN);
  const total = Number.isFinite(stated) ? stated : null;
  const rows = /^text\/csv/.test(response.headers.get('content-type') ?? '') ? csvRows() : null;
  const chunks: Uint8Array<ArrayBuffer>[] = [];
  let bytes = 0;
  const reader = response.body!.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value as Uint8Array<ArrayBuffer>);
    bytes += value.length;
    rows?.add(value);
    progress({ bytes, rows: rows ? Math.min(rows.count(), total ?? Infinity) : null, total });
  }
  const filename = filenameOf(response, path.split('/').pop()?.split('?')[0] ?? 'download');
  save(new Blob(chunks, { type: response.headers.get('content-type') ?? 'application/octet-stream' }), filename);
  return { filename, rows: rows ? rows.count(true) : total };
}

export interface Page<T = Row> {
  count: number;
  next: string | null;
  previous: string | null;
  results: T[];
}

export type Row = Record<string, unknown> & { id: number };

/** Every record of a list matching `query`, a thousand at a time, up to `max` (charts). */
export async function readAll(name: string, query: URLSearchParams, max: number, progress?: (read: number, count: number) => void): Promise<{ rows: Row[]; count: number }> {
  const rows: Row[] = [];
  for (let page = 1; ; page += 1) {
    const params = new URLSearchParams(query);
    params.set('limit', '1000');
    params.set('page', String(page));
    let answer = await call<Page>(`/rest/v1/${name}/?${params}`);
    // Pages of 1000 are large pages: past the caller's share at once (other tabs reading too) the
    // service answers 429 for a second (README, "No caller takes the service for itself").
    for (let tries = 0; answer.status === 429 && tries < 5; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 1000));
      answer = await call<Page>(`/rest/v1/${name}/?${params}`);
    }
    if (!answer.ok) throw new Refused(answer.status, answer.body);
    rows.push(...answer.body.results);
    progress?.(rows.length, answer.body.count);
    if (!answer.body.next || rows.length >= max) return { rows, count: answer.body.count };
  }
}
