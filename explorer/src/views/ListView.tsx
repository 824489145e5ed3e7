/**
 * One list as a table: the API's own query string is the page's (ordering, page, limit, filters),
 * so the address bar is always a shareable view. Columns order by a click on their header (again
 * for the other direction), filter with the lookups the API offers for them, and a search box
 * looks for a text in every text column at once.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, messageOf, session, type Page } from '../api';
import { Link, recordPath, show, Status } from '../components';
import { navigate } from '../router';
import { label, type FieldSpec, type ResourceSpec } from '../spec';

const PAGE_SIZES = [10, 30, 100, 500];
const DEFAULT_LIMIT = 30;
/** An explorer parameter, not the API's: a text looked for in every text column (as q_filterN). */
const SEARCH = 'search';

/** The API's query for this view: the page's own, with the search box turned into ORed filters. */
export function apiQuery(spec: ResourceSpec, params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams(params);
  const search = query.get(SEARCH)?.trim();
  query.delete(SEARCH);
  if (search) {
    const texts = spec.fields.filter((field) => field.type === 'string' && field.lookups.includes('icontains'));
    texts.forEach((field, index) => query.set(`q_filter${index + 1}`, `{'${field.name}__icontains': ${JSON.stringify(search)}}`));
  }
  return query;
}

const columnsOf = (spec: ResourceSpec) => spec.fields.filter((field) => field.type !== 'object' && field.type !== 'array' && field.type !== 'any');

/** The filter a column has in the URL: its lookup and value (the first parameter naming the field). */
function filterOf(field: FieldSpec, params: URLSearchParams): { lookup: string; value: string } {
  for (const lookup of field.lookups) {
    const value = params.get(lookup === 'exact' ? field.name : `${field.name}__${lookup}`);
    if (value !== null) return { lookup, value };
  }
  return { lookup: field.lookups.includes('icontains') ? 'icontains' : 'exact', value: '' };
}

const href = (path: string, params: URLSearchParams, changes: Record<string, string | null>) => {
  const next = new URLSearchParams(params);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null) next.delete(key);
    else next.set(key, value);
  }
  const text = next.toString();
  return text ? `${path}?${text}` : path;
};

export function ListView({ spec, url }: { spec: ResourceSpec; url: URL }) {
  const params = url.searchParams;
  const [page, setPage] = useState<Page | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(true);
  const [filters, setFilters] = useState<Record<string, { lookup: string; value: string }>>({});
  const [search, setSearch] = useState(params.get(SEARCH) ?? '');
  const columns = columnsOf(spec);
  const path = `/explore/${spec.name}/`;

  useEffect(() => {
    setFilters(Object.fromEntries(columns.filter((field) => field.lookups.length).map((field) => [field.name, filterOf(field, params)])));
    setSearch(params.get(SEARCH) ?? '');
    let current = true;
    setLoading(true);
    call<Page>(`/rest/v1/${spec.name}/?${apiQuery(spec, params)}`).then(
      (answer) => {
        if (!current) return;
        setLoading(false);
        if (answer.ok) {
          setPage(answer.body);
          setError(null);
        } else {
          setError(messageOf(answer.body, answer.status));
          setPage(null);
        }
      },
      (failure: Error) => current && (setLoading(false), setError(failure.message)),
    );
    return () => {
      current = false;
    };
  }, [spec.name, url.search]);

  const ordering = params.get('ordering') ?? '';
  const [first] = ordering.split(',');
  const limit = Number(params.get('limit')) > 0 ? Math.min(1000, Number(params.get('limit'))) : DEFAULT_LIMIT;
  const pages = page ? Math.max(1, Math.ceil(page.count / limit)) : 1;
  const asked = params.get('page');
  const current = asked === 'last' ? pages : Math.max(1, Number(asked) || 1);

  function applyFilters(event: Event) {
    event.preventDefault();
    const next = new URLSearchParams(params);
    for (const field of columns) {
      for (const lookup of field.lookups) next.delete(lookup === 'exact' ? field.name : `${field.name}__${lookup}`);
      const chosen = filters[field.name];
      if (chosen && chosen.value.trim() !== '') next.set(chosen.lookup === 'exact' ? field.name : `${field.name}__${chosen.lookup}`, chosen.value.trim());
    }
    next.delete('page');
    if (search.trim()) next.set(SEARCH, search.trim());
    else next.delete(SEARCH);
    navigate(`${path}${next.toString() ? `?${next}` : ''}`);
  }

  const sortHref = (field: string) => href(path, params, { ordering: first === field ? `-${field}` : field, page: null });
  const pageHref = (number: number | 'last') => href(path, params, { page: number === 1 ? null : String(number) });
  const shown = [...new Set([1, current - 2, current - 1, current, current + 1, current + 2, pages])].filter((number) => number >= 1 && number <= pages).sort((a, b) => a - b);
  const canWrite = spec.writes !== null && session.token() !== null;

  return (
    <section aria-labelledby="list-title">
      <div class="heading">
        <h1 id="list-title" tabIndex={-1}>{spec.title}</h1>
        <p class="muted" aria-live="polite">{page ? `${page.count.toLocaleString('en')} record${page.count === 1 ? '' : 's'}` : ''}</p>
      </div>
      <form id="filters" class="toolbar" onSubmit={applyFilters} role="search">
        <label>
          Search text <input type="search" name="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} placeholder="in every text column" />
        </label>
        <button type="submit">Apply</button>
        <label>
          Per page{' '}
          <select value={String(limit)} onChange={(event) => navigate(href(path, params, { limit: event.currentTarget.value === String(DEFAULT_LIMIT) ? null : event.currentTarget.value, page: null }))}>
            {PAGE_SIZES.map((size) => (
              <option value={String(size)}>{size}</option>
            ))}
          </select>
        </label>
        <span class="spacer" />
        <a href={`/rest/v1/${spec.name}/?${href('', apiQuery(spec, params), { format: 'csv' }).slice(1)}`}>CSV</a>
        <a href={`/rest/v1/${spec.name}/?${href('', apiQuery(spec, params), { format: 'json' }).slice(1)}`}>JSON</a>
        {canWrite && <Link href={`${path}new/`} class="button">New {spec.title.toLowerCase()}</Link>}
      </form>
      <Status loading={loading && !page} error={error} />
      {page && (
        <div class="table-wrap" tabIndex={0} aria-label={`${spec.title} table`}>
          <table>
            <thead>
              <tr>
                {columns.map((field) => {
                  const sorted = first === field.name ? 'ascending' : first === `-${field.name}` ? 'descending' : undefined;
                  return (
                    <th scope="col" aria-sort={sorted ?? 'none'}>
                      {field.orderable ? (
                        <Link href={sortHref(field.name)} aria-label={`${label(field.name)}: order ${sorted === 'ascending' ? 'descending' : 'ascending'}`}>
                          {label(field.name)} <span aria-hidden="true">{sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''}</span>
                        </Link>
                      ) : (
                        label(field.name)
                      )}
                    </th>
                  );
                })}
              </tr>
              <tr class="filters">
                {columns.map((field) => (
                  <td>
                    {field.lookups.length > 0 && filters[field.name] && (
                      <span class="filter">
                        <select form="filters" aria-label={`${label(field.name)} filter lookup`} value={filters[field.name].lookup} onChange={(event) => setFilters({ ...filters, [field.name]: { ...filters[field.name], lookup: event.currentTarget.value } })}>
                          {field.lookups.map((lookup) => (
                            <option value={lookup}>{lookup === 'exact' ? '=' : lookup}</option>
                          ))}
                        </select>
                        <input form="filters" aria-label={`${label(field.name)} filter`} name={`filter-${field.name}`} value={filters[field.name].value} onInput={(event) => setFilters({ ...filters, [field.name]: { ...filters[field.name], value: event.currentTarget.value } })} />
                      </span>
                    )}
                  </td>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.results.map((row) => (
                <tr>
                  {columns.map((field) => {
                    const value = row[field.name];
                    if (field.name === 'id') return <td><Link href={`${path}${row.id}/`} aria-label={`${spec.title} ${row.id}`}>{String(row.id)}</Link></td>;
                    const target = field.references ? recordPath(field.references, value) : null;
                    return <td class={(field.type === 'number' || field.type === 'integer') && !field.references ? 'number' : undefined}>{target ? <Link href={target}>{show(value)}</Link> : show(value)}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          {page.results.length === 0 && <p class="muted">No records match.</p>}
        </div>
      )}
      {page && pages > 1 && (
        <nav class="pager" aria-label="Pages">
          {current > 1 ? <Link href={pageHref(current - 1)} aria-label="Previous page">‹ Previous</Link> : <span class="muted">‹ Previous</span>}
          {shown.map((number, index) => (
            <>
              {index > 0 && number - shown[index - 1] > 1 && <span class="muted">…</span>}
              {number === current ? <span aria-current="page" class="current">{number}</span> : <Link href={number === pages ? pageHref('last') : pageHref(number)} aria-label={number === pages ? `Last page, ${number}` : `Page ${number}`}>{String(number)}</Link>}
            </>
          ))}
          {current < pages ? <Link href={pageHref(current + 1)} aria-label="Next page">Next ›</Link> : <span class="muted">Next ›</span>}
        </nav>
      )}
    </section>
  );
}
