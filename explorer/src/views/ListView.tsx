/**
 * One list as a table: the API's own query string is the page's (ordering, page, limit, filters),
 * so the address bar is always a shareable view. Columns are titled as the OpenAPI document titles
 * them, order by a click on their header (again for the other direction), filter with the lookups
 * the API offers for them (named in words), and a search box looks for a text in every text
 * column at once. A list shows its most telling columns, as many as the screen holds; a chooser
 * shows the others (remembered in the address, `columns=`). A descending order that starts with
 * empty values says so, and offers the filter that leaves them out.
 */
import { useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { get, session, type Page } from '../api';
import { fill, Link, recordPath, show, Status, useRead } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import type { FieldSpec, ResourceSpec } from '../spec';
import { ListDownload } from './ListDownload';

const PAGE_SIZES = [10, 30, 100, 500];
const DEFAULT_LIMIT = 30;
/** An explorer parameter, not the API's: a text looked for in every text column (as q_filterN). */
const SEARCH = 'search';
/** An explorer parameter, not the API's: the columns chosen, by name, separated by commas. */
const COLUMNS = 'columns';

/** Each lookup as a filter's menu says it (the API's own name is the option's value and tooltip): a sign, or words. */
const LOOKUP_SIGNS: Record<string, string> = { exact: '=', gt: '>', gte: '≥', lt: '<', lte: '≤' };
const LOOKUP_WORDS = ['iexact', 'contains', 'icontains', 'startswith', 'istartswith', 'endswith', 'iendswith', 'in', 'isnull', 'range'] as const;
const lookupName = (lookup: string) => {
  const worded = LOOKUP_WORDS.find((name) => name === lookup);
  return LOOKUP_SIGNS[lookup] ?? (worded ? t(`lookup.${worded}`) : lookup);
};
const placeholder = (lookup: string) => ({ in: 'a,b,c', range: t('list.placeholderRange'), isnull: t('list.placeholderIsNull') })[lookup];

/**
 * The columns a list shows first, most telling first: the first three on a phone, more as the
 * screen widens (COLUMN_BUDGET). Lists not named here, and the columns not named, follow in the
 * document's order, codes that have a label beside them and links and URIs last.
 */
const PRIORITY: Record<string, string[]> = {
  budget_item: ['id', 'label_label', 'amount', 'currency_label', 'project', 'period_start', 'period_end', 'type_label'],
  transaction: ['id', 'transaction_type_label', 'value', 'currency_label', 'transaction_date', 'project', 'provider_organisation', 'receiver_organisation'],
  organisation: ['id', 'name', 'long_name', 'city', 'iati_org_id', 'currency', 'url', 'new_organisation_type'],
  indicator_period_data_comment: ['id', 'comment', 'created_at', 'user', 'data', 'last_modified_at'],
  recipient_region: ['id', 'region_label', 'percentage', 'project', 'vocabulary_label', 'text'],
  project_custom_field: ['id', 'name', 'value', 'project', 'section', 'type', 'mandatory', 'order'],
  administrative_location: ['id', 'code', 'vocabulary_label', 'level', 'location', 'location_unicode'],
  link: ['id', 'caption', 'url', 'kind', 'project'],
  disaggregation_target: ['id', 'value', 'dimension_value', 'dimension_name', 'period'],
  keyword: ['id', 'label', 'logo'],
  my_projects: ['id', 'title', 'status', 'date_start_planned', 'date_end_planned', 'is_public', 'children_count', 'subtitle'],
  humanitarian_scope: ['id', 'text', 'type_label', 'code', 'vocabulary_label', 'project'],
};

/**
 * How many columns a list shows unless told otherwise: at most 3 on a phone, 5 on a tablet, 8 from
 * a laptop up; fewer when they would not fit across the screen (ListView drops the least telling
 * until they do, down to 3).
 */
const COLUMN_BUDGET: [query: string, count: number][] = [['(min-width: 1100px)', 8], ['(min-width: 700px)', 5]];

function useColumnBudget(): number {
  const measure = () => COLUMN_BUDGET.find(([query]) => matchMedia(query).matches)?.[1] ?? 3;
  const [count, setCount] = useState(measure);
  useEffect(() => {
    const queries = COLUMN_BUDGET.map(([query]) => matchMedia(query));
    const update = () => setCount(measure());
    queries.forEach((query) => query.addEventListener('change', update));
    return () => queries.forEach((query) => query.removeEventListener('change', update));
  }, []);
  return count;
}

/** The list's columns, most telling first. */
function byPriority(spec: ResourceSpec, columns: FieldSpec[]): string[] {
  const names = new Set(columns.map((field) => field.name));
  const late = (name: string) => names.has(`${name}_label`) || /_(show_link|uri|activity)$/.test(name);
  const first = (PRIORITY[spec.name] ?? []).filter((name) => names.has(name));
  const rest = columns.map((field) => field.name).filter((name) => !first.includes(name));
  return [...first, ...rest.filter((name) => !late(name)), ...rest.filter(late)];
}

/** The API's query for this view: the page's own, with the search box turned into ORed filters. */
export function apiQuery(spec: ResourceSpec, params: URLSearchParams): URLSearchParams {
  const query = new URLSearchParams(params);
  const search = query.get(SEARCH)?.trim();
  query.delete(SEARCH);
  query.delete(COLUMNS);
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
  const [filters, setFilters] = useState<Record<string, { lookup: string; value: string }>>({});
  const [search, setSearch] = useState(params.get(SEARCH) ?? '');
  const columns = columnsOf(spec);
  const path = `/explore/${spec.name}/`;
  const budget = useColumnBudget();
  const query = apiQuery(spec, params).toString();
  const wrap = useRef<HTMLDivElement>(null);
  const [fitted, setFitted] = useState<{ key: string; count: number } | null>(null);
  const fitKey = `${spec.name} ${budget}`;
  const count = fitted?.key === fitKey ? fitted.count : budget;

  // The page shown stays until the next one comes (no blink between pages); a failure shows Retry.
  const { data: page, error, loading, retry } = useRead(() => get<Page>(`/rest/v1/${spec.name}/?${query}`), [spec.name, query]);
  useEffect(() => {
    setFilters(Object.fromEntries(columns.filter((field) => field.lookups.length).map((field) => [field.name, filterOf(field, params)])));
    setSearch(params.get(SEARCH) ?? '');
  }, [spec.name, query]);

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

  // The columns shown: those chosen (columns=), else the most telling ones the screen holds; and
  // always those the view is ordered or filtered by.
  const inUse = new Set(columns.filter((field) => first.replace(/^-/, '') === field.name || field.lookups.some((lookup) => params.has(lookup === 'exact' ? field.name : `${field.name}__${lookup}`))).map((field) => field.name));
  const chosen = params.get(COLUMNS)?.split(',').filter((name) => columns.some((field) => field.name === name));
  const picked = new Set(chosen?.length ? chosen : byPriority(spec, columns).slice(0, count));
  const visible = columns.filter((field) => picked.has(field.name) || inUse.has(field.name));
  const choose = (name: string, show: boolean) => {
    const names = columns.filter((field) => (field.name === name ? show : picked.has(field.name))).map((field) => field.name);
    navigate(href(path, params, { [COLUMNS]: names.join(',') }), true);
  };

  // Unless columns were chosen, one fewer until the table fits across its box (measured before it is painted).
  useLayoutEffect(() => {
    const box = wrap.current;
    if (!chosen?.length && box && count > 3 && box.scrollWidth > box.clientWidth + 1) setFitted({ key: fitKey, count: count - 1 });
  });

  // A descending order puts empty values first (as RSR does): say so, and offer to leave them out.
  const orderedBy = first.startsWith('-') ? columns.find((field) => field.name === first.slice(1)) : undefined;
  const emptyFirst = orderedBy && page && page.results.length > 0 && (page.results[0][orderedBy.name] ?? null) === null;
  const leaveOut = orderedBy ? `${orderedBy.name}__isnull` : '';

  return (
    <section aria-labelledby="list-title">
      <div class="heading">
        <h1 id="list-title" tabIndex={-1}>{spec.title}</h1>
        <p class="muted" aria-live="polite">{page ? t('list.records', page.count) : ''}</p>
        {/* Beside the count: the whole list, not the page shown. */}
        <ListDownload list={spec.name} query={apiQuery(spec, params)} />
      </div>
      <form id="filters" class="toolbar" onSubmit={applyFilters} role="search">
        <label>
          {t('list.search')} <input type="search" name="search" value={search} onInput={(event) => setSearch(event.currentTarget.value)} placeholder={t('list.searchPlaceholder')} />
        </label>
        <button type="submit">{t('list.apply')}</button>
        <label>
          {t('list.perPage')}{' '}
          <select value={String(limit)} onChange={(event) => navigate(href(path, params, { limit: event.currentTarget.value === String(DEFAULT_LIMIT) ? null : event.currentTarget.value, page: null }))}>
            {PAGE_SIZES.map((size) => (
              <option value={String(size)}>{size}</option>
            ))}
          </select>
        </label>
        <span class="spacer" />
        <a href={`/rest/v1/${spec.name}/?${href('', apiQuery(spec, params), { format: 'json' }).slice(1)}`}>JSON</a>
        {canWrite && <Link href={`${path}new/`} class="button">{t('list.new', spec.title)}</Link>}
      </form>
      <Status loading={loading && !page} error={error} retry={retry} />
      {page && (
        <details class="chooser">
          <summary>
            {t('list.columns')} <span class="muted">{t('list.columnsShown', visible.length, columns.length)}</span>
          </summary>
          <fieldset>
            <legend>{t('list.columnsLegend')}</legend>
            {columns.map((field) => (
              <label title={inUse.has(field.name) ? t('list.columnInUse', field.name) : field.name}>
                <input type="checkbox" name="column" value={field.name} checked={visible.includes(field)} disabled={inUse.has(field.name)} onChange={(event) => choose(field.name, event.currentTarget.checked)} /> {field.title}
              </label>
            ))}
            {params.has(COLUMNS) && (
              <button type="button" class="secondary" onClick={() => navigate(href(path, params, { [COLUMNS]: null }), true)}>
                {t('list.usualColumns')}
              </button>
            )}
          </fieldset>
        </details>
      )}
      {emptyFirst && orderedBy && (
        <p class="notice" role="note" data-note="empty-first">
          {t('list.emptyFirst')}
          {orderedBy.lookups.includes('isnull')
            ? fill(t('list.emptyFirstFilter'), {
                filter: <code>{`${leaveOut}=False`}</code>,
                link: <Link href={href(path, params, { [leaveOut]: 'False', page: null })}>{t('list.leaveOutEmpty', orderedBy.title)}</Link>,
              })
            : '.'}
        </p>
      )}
      {page && (
        <div class="table-wrap" ref={wrap} tabIndex={0} role="region" aria-label={t('list.table', spec.title)}>
          <table>
            <thead>
              <tr>
                {visible.map((field) => {
                  const sorted = first === field.name ? 'ascending' : first === `-${field.name}` ? 'descending' : undefined;
                  return (
                    <th scope="col" aria-sort={sorted ?? 'none'} title={field.name} data-field={field.name}>
                      {field.orderable ? (
                        <Link href={sortHref(field.name)} aria-label={sorted === 'ascending' ? t('list.orderDescending', field.title) : t('list.orderAscending', field.title)}>
                          {field.title} <span aria-hidden="true">{sorted === 'ascending' ? '▲' : sorted === 'descending' ? '▼' : ''}</span>
                        </Link>
                      ) : (
                        field.title
                      )}
                    </th>
                  );
                })}
              </tr>
              <tr class="filters">
                {visible.map((field) => (
                  <td>
                    {field.lookups.length > 0 && filters[field.name] && (
                      <span class="filter">
                        <select form="filters" aria-label={t('list.filterLookup', field.title)} title={filters[field.name].lookup} value={filters[field.name].lookup} onChange={(event) => setFilters({ ...filters, [field.name]: { ...filters[field.name], lookup: event.currentTarget.value } })}>
                          {field.lookups.map((lookup) => (
                            <option value={lookup} title={lookup}>{lookupName(lookup)}</option>
                          ))}
                        </select>
                        <input form="filters" aria-label={t('list.filter', field.title)} name={`filter-${field.name}`} placeholder={placeholder(filters[field.name].lookup)} value={filters[field.name].value} onInput={(event) => setFilters({ ...filters, [field.name]: { ...filters[field.name], value: event.currentTarget.value } })} />
                      </span>
                    )}
                  </td>
                ))}
              </tr>
            </thead>
            <tbody>
              {page.results.map((row) => (
                <tr>
                  {visible.map((field) => {
                    const value = row[field.name];
                    if (field.name === 'id') return <td><Link href={`${path}${row.id}/`} aria-label={`${spec.title} ${row.id}`}>{String(row.id)}</Link></td>;
                    // A foreign key is an id: no thousands separator.
                    const text = field.references && value !== null && value !== undefined ? String(value) : show(value);
                    const target = field.references ? recordPath(field.references, value) : null;
                    return <td class={(field.type === 'number' || field.type === 'integer') && !field.references ? 'number' : undefined}>{target ? <Link href={target}>{text}</Link> : text}</td>;
                  })}
                </tr>
              ))}
            </tbody>
          </table>
          {page.results.length === 0 && <p class="muted">{t('list.noMatch')}</p>}
        </div>
      )}
      {page && pages > 1 && (
        <nav class="pager" aria-label={t('pager.pages')}>
          {current > 1 ? <Link href={pageHref(current - 1)} aria-label={t('pager.previousPage')}>{t('pager.previous')}</Link> : <span class="muted">{t('pager.previous')}</span>}
          {shown.map((number, index) => (
            <>
              {index > 0 && number - shown[index - 1] > 1 && <span class="muted">…</span>}
              {number === current ? <span aria-current="page" class="current">{number}</span> : <Link href={number === pages ? pageHref('last') : pageHref(number)} aria-label={number === pages ? t('pager.lastPage', number) : t('pager.page', number)}>{String(number)}</Link>}
            </>
          ))}
          {current < pages ? <Link href={pageHref(current + 1)} aria-label={t('pager.nextPage')}>{t('pager.next')}</Link> : <span class="muted">{t('pager.next')}</span>}
        </nav>
      )}
    </section>
  );
}
