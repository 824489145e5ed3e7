/**
 * The explorer's only way to the data: the service's own API, as any client reads it. The token
 * a person signs in with is kept in this tab's session storage and sent as `Authorization: Token`.
 */

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
  if (body && typeof body === 'object') {
    const record = body as Record<string, unknown>;
    if (typeof record.detail === 'string') return record.detail;
    return Object.entries(record).map(([key, value]) => `${key}: ${([] as unknown[]).concat(value).join(' ')}`).join('; ');
  }
  return `The service answered ${status}.`;
}

/** A JSON request to the API; the answer's body parsed (null when it has none). `token` tries a key not yet signed in with. */
export async function call<T = unknown>(path: string, method = 'GET', body?: unknown, token = session.token()): Promise<Answer<T>> {
  const response = await fetch(path, {
    method,
    headers: headers(body === undefined ? {} : { 'content-type': 'application/json' }, token),
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, ok: response.ok, body: (text ? JSON.parse(text) : null) as T };
}

/** A file the API makes (a report), fetched with the token and handed to the browser as a download. */
export async function download(path: string): Promise<{ ok: true; filename: string } | { ok: false; status: number; message: string }> {
  const response = await fetch(path, { headers: headers({ accept: '*/*' }) });
  if (!response.ok) return { ok: false, status: response.status, message: messageOf(await response.json().catch(() => null), response.status) };
  const filename = /filename="([^"]+)"/.exec(response.headers.get('content-disposition') ?? '')?.[1] ?? 'report';
  const url = URL.createObjectURL(await response.blob());
  const link = document.createElement('a');
  link.href = url;
  link.download = filename;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 60_000);
  return { ok: true, filename };
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
    if (!answer.ok) throw new Error(`${name}: ${answer.status}`);
    rows.push(...answer.body.results);
    progress?.(rows.length, answer.body.count);
    if (!answer.body.next || rows.length >= max) return { rows, count: answer.body.count };
  }
}
