/** Small pieces every view uses: links, a status line, field values. */
import type { ComponentChildren } from 'preact';
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

/** A value as a cell shows it: text, numbers with separators, lists and objects summarised. */
export function show(value: unknown): string {
  if (value === null || value === undefined) return '—';
  if (typeof value === 'number') return value.toLocaleString('en', { maximumFractionDigits: 2 });
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (Array.isArray(value)) return value.length === 0 ? '—' : value.map((item) => (typeof item === 'object' && item !== null ? summary(item as Record<string, unknown>) : String(item))).join(', ');
  if (typeof value === 'object') return summary(value as Record<string, unknown>);
  return String(value);
}

function summary(value: Record<string, unknown>): string {
  const named = value.name ?? value.title ?? value.label ?? value.display_name ?? value.id;
  return named === undefined ? JSON.stringify(value) : String(named);
}

export function Status({ loading, error }: { loading?: boolean; error?: string | null }) {
  if (error) return <p class="error" role="alert">{error}</p>;
  if (loading) return <p class="muted" role="status">Loading…</p>;
  return null;
}
