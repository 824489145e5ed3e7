/**
 * The report definitions (/rest/v1/reports/), each with a form for its parameters: the
 * organisation or project picked by name, the period, the format; the file is fetched with the
 * signed-in token and saved by the browser.
 */
import { useEffect, useState } from 'preact/hooks';
import { call, download, get, session, type Page } from '../api';
import { Status, useRead } from '../components';
import { list, t } from '../i18n';

interface Report {
  id: number;
  name: string;
  title: string;
  description: string;
  url: string;
  parameters: string[];
  formats: { name: string; display_name: string }[];
}

const DATES: Record<string, () => string> = {
  period_start: () => t('reports.periodStart'),
  period_end: () => t('reports.periodEnd'),
  start_date: () => t('reports.startDate'),
  end_date: () => t('reports.endDate'),
};
/** Where a picker's names come from: the organisations' list, or the service's names of projects and programs. */
const PICKERS: Record<string, { what: () => string; the: () => string; search: (text: string) => string; name: string }> = {
  organisation: { what: () => t('reports.organisation'), the: () => t('reports.theOrganisation'), search: (text) => `/rest/v1/organisation/?${new URLSearchParams({ name__icontains: text, limit: '20' })}`, name: 'name' },
  project: { what: () => t('reports.project'), the: () => t('reports.theProject'), search: (text) => `/explorer/api/names/project/?${new URLSearchParams({ title: text })}`, name: 'title' },
  program: { what: () => t('reports.program'), the: () => t('reports.theProgram'), search: (text) => `/explorer/api/names/program/?${new URLSearchParams({ title: text })}`, name: 'title' },
};

/** The form asks for what the report is about first, then the period, then how. */
const ORDER = ['organisation', 'project', 'program', 'period_start', 'start_date', 'period_end', 'end_date', 'format', 'comment'];
const rank = (parameter: string) => (ORDER.includes(parameter) ? ORDER.indexOf(parameter) : ORDER.length);

/** "Name (#12)" or "12" → "12". */
const idOf = (text: string) => /#?(\d+)\)?\s*$/.exec(text.trim())?.[1] ?? '';

function Picker({ parameter, value, onInput }: { parameter: string; value: string; onInput: (value: string) => void }) {
  const picker = PICKERS[parameter];
  const [options, setOptions] = useState<string[]>([]);
  const listId = `${parameter}-names`;
  useEffect(() => {
    if (!picker || value.trim().length < 2 || /^\d+$/.test(value.trim())) return;
    const timer = setTimeout(() => {
      // Suggestions only: when they cannot be read, a name or an id is still typed in.
      call<Page>(picker.search(value.trim())).then(
        (answer) => answer.ok && setOptions(answer.body.results.map((row) => `${String(row[picker.name])} (#${row.id})`)),
        () => setOptions([]),
      );
    }, 200);
    return () => clearTimeout(timer);
  }, [value]);
  return (
    <label>
      {picker?.what() ?? parameter} <small class="muted">{t('reports.nameOrId')}</small>
      <input name={parameter} list={picker ? listId : undefined} value={value} required onInput={(event) => onInput(event.currentTarget.value)} autoComplete="off" />
      {picker && (
        <datalist id={listId}>
          {options.map((option) => (
            <option value={option} />
          ))}
        </datalist>
      )}
    </label>
  );
}

function ReportForm({ report }: { report: Report }) {
  const [values, setValues] = useState<Record<string, string>>({ format: report.formats[0]?.name ?? '' });
  const [result, setResult] = useState<{ ok: boolean; text: string } | null>(null);
  const [busy, setBusy] = useState(false);
  const set = (name: string, value: string) => setValues({ ...values, [name]: value });

  async function submit(event: Event) {
    event.preventDefault();
    const filled: Record<string, string> = {};
    for (const parameter of report.parameters) {
      const value = values[parameter] ?? '';
      filled[parameter] = parameter in PICKERS ? idOf(value) : value;
    }
    const missing = report.parameters.filter((parameter) => parameter in PICKERS && !filled[parameter]);
    if (missing.length) return setResult({ ok: false, text: t('reports.choose', list(missing.map((parameter) => PICKERS[parameter].the()))) });
    const path = report.url.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(filled[name] ?? ''));
    setBusy(true);
    setResult(null);
    const outcome = await download(path);
    setBusy(false);
    setResult(outcome.ok ? { ok: true, text: t('reports.downloaded', outcome.filename) } : { ok: false, text: outcome.message });
  }

  return (
    <form class="report" onSubmit={submit} aria-labelledby={`report-${report.id}`} data-report={report.name}>
      <h2 id={`report-${report.id}`}>{report.title}</h2>
      {report.description && <p class="muted">{report.description}</p>}
      <div class="report-fields">
        {[...report.parameters].sort((a, b) => rank(a) - rank(b)).map((parameter) => {
          if (parameter === 'format') {
            return (
              <label>
                {t('reports.format')}
                <select name="format" value={values.format} onChange={(event) => set('format', event.currentTarget.value)}>
                  {report.formats.map((format) => (
                    <option value={format.name}>{format.display_name}</option>
                  ))}
                </select>
              </label>
            );
          }
          if (parameter in DATES) {
            return (
              <label>
                {DATES[parameter]()}
                <input type="date" name={parameter} value={values[parameter] ?? ''} onInput={(event) => set(parameter, event.currentTarget.value)} />
              </label>
            );
          }
          if (parameter === 'comment') {
            return (
              <label class="inline">
                <input type="checkbox" name="comment" checked={values.comment === 'true'} onChange={(event) => set('comment', event.currentTarget.checked ? 'true' : '')} /> {t('reports.withComments')}
              </label>
            );
          }
          return <Picker parameter={parameter} value={values[parameter] ?? ''} onInput={(value) => set(parameter, value)} />;
        })}
      </div>
      <button type="submit" disabled={busy}>{busy ? t('reports.making') : t('reports.download')}</button>
      {result && (
        <p class={result.ok ? 'success' : 'error'} role={result.ok ? 'status' : 'alert'}>
          {result.text}
        </p>
      )}
    </form>
  );
}

export function Reports() {
  const { data: reports, error, retry } = useRead(() => get<Page<Report>>('/rest/v1/reports/?limit=100').then((page) => page.results), []);
  return (
    <section aria-labelledby="reports-title">
      <h1 id="reports-title" tabIndex={-1}>{t('reports.title')}</h1>
      {!session.token() && <p class="notice">{t('reports.signInNotice')}</p>}
      <Status loading={!reports && !error} error={error} retry={retry} />
      {reports?.map((report) => (
        <ReportForm report={report} />
      ))}
    </section>
  );
}
