/** Small pieces every view uses: links, a status line with Retry, field values, texts with links in them. */
import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { date, num, t } from './i18n';
import { follow } from './router';

export function Link({ href, children, ...rest }: { href: string; children: ComponentChildren; class?: string; 'aria-current'?: 'page' | undefined; 'aria-label'?: string }) {
  return (
    <a href={href} onClick={follow} {...rest}>
      {children}
    </a>
  );
}

/** Where a foreign key leads in the explorer, when it leads to a record the explorer shows. */
export function recordPath(table: string, id: unknown): string | null {
  if (id === null || id === undefined) return null;
  if (table === 'project') return `/explore/project/${id}/`;
  if (table === 'organisation') return `/explore/organisation/${id}/`;
  return null;
}

/** A value as a cell shows it: numbers and dates as the language writes them, lists and objects summarised. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return num(value);
  if (typeof value === 'boolean') return value ? t('common.yes') : t('common.no');
  if (typeof value === 'string') return date(value);
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((item) => (typeof item === 'object' && item !== null ? summary(item as Record<string, unknown>) : String(item))).join(', ');
  if (typeof value === 'object') return summary(value as Record<string, unknown>);
  return String(value);
}

function summary(value: Record<string, unknown>): string {
  const named = value.name ?? value.title ?? value.label ?? value.display_name ?? value.id;
  return named === undefined ? JSON.stringify(value) : String(named);
}

/** A translated text with `{name}` places for links or code: "… look at the {charts} …". */
export function fill(text: string, slots: Record<string, ComponentChildren>): ComponentChildren[] {
  return text.split(/\{(\w+)\}/).map((part, index) => (index % 2 === 1 ? slots[part] : part));
}

/** What went wrong, and a button to ask again: no view waits for ever on a request that failed. */
export function Failure({ message, retry }: { message: string; retry: () => void }) {
  return (
    <div class="failure" role="alert">
      <p class="error">{message}</p>
      <button type="button" class="secondary" onClick={retry}>
        {t('common.retry')}
      </button>
    </div>
  );
}

export function Status({ loading, error, retry }: { loading?: boolean; error?: string | null; retry?: () => void }) {
  if (error) return retry ? <Failure message={error} retry={retry} /> : <p class="error" role="alert">{error}</p>;
  if (loading) return <p class="muted" role="status">{t('common.loading')}</p>;
  return null;
}

export const messageOfFailure = (failure: unknown) => (failure instanceof Error ? failure.message : String(failure));

/**
 * What a view reads (`read` throws when the request fails: api.ts, `get`): its answer, kept
 * until the next one comes so the view does not blink; the failure's message; `retry` reads again.
 */
export function useRead<T>(read: () => Promise<T>, dependencies: readonly unknown[]) {
  const [state, setState] = useState<{ data: T | null; error: string | null; loading: boolean }>({ data: null, error: null, loading: true });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    let current = true;
    setState((known) => ({ ...known, loading: true }));
    read().then(
      (data) => current && setState({ data, error: null, loading: false }),
      (failure: unknown) => current && setState({ data: null, error: messageOfFailure(failure), loading: false }),
    );
    return () => {
      current = false;
    };
  }, [...dependencies, attempt]);
  return { ...state, retry: () => setAttempt((count) => count + 1), set: (data: T) => setState({ data, error: null, loading: false }) };
}
