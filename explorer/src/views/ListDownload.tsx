/**
 * The whole list as a file, not just the page shown: GET /download/<list>.csv or .xlsx with the
 * list's filters and ordering, fetched with the signed-in token (a plain link would go without
 * it, and see only the public projects' records). The service streams it; what has come so far is
 * shown as it comes (bytes, and for a CSV its records out of X-Total-Count), then the browser
 * saves it. Where a comma is the decimal separator (Spanish, French), spreadsheets split CSV on
 * ";": there a "CSV for Excel" is offered too, with ";" and a byte order mark (so that Excel
 * reads it as UTF-8).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { downloadList, type Received } from '../api';
import { Failure, messageOfFailure } from '../components';
import { locale, t } from '../i18n';

interface Choice {
  label: 'download.csv' | 'download.csvExcel' | 'download.xlsx';
  format: 'csv' | 'xlsx';
  options?: Record<string, string>;
}

const CSV: Choice = { label: 'download.csv', format: 'csv' };
const CSV_EXCEL: Choice = { label: 'download.csvExcel', format: 'csv', options: { bom: 'true', delimiter: ';' } };
const XLSX: Choice = { label: 'download.xlsx', format: 'xlsx' };
/** The API's parameters of a page, not of a whole list. */
const PAGE_ONLY = ['page', 'limit', 'offset', 'format'];

type State = { now: 'idle' } | { now: 'reading'; received: Received } | { now: 'done'; text: string } | { now: 'failed'; message: string; choice: Choice };

export function ListDownload({ list, query }: { list: string; query: URLSearchParams }) {
  const [state, setState] = useState<State>({ now: 'idle' });
  const reading = useRef<AbortController | null>(null);
  // Leaving the list leaves its download.
  useEffect(() => () => reading.current?.abort(), []);

  async function start(choice: Choice) {
    const controller = new AbortController();
    reading.current = controller;
    const params = new URLSearchParams(query);
    PAGE_ONLY.forEach((name) => params.delete(name));
    for (const [name, value] of Object.entries(choice.options ?? {})) params.set(name, value);
    setState({ now: 'reading', received: { bytes: 0, rows: choice.format === 'csv' ? 0 : null, total: null } });
    try {
      const saved = await downloadList(`/download/${list}.${choice.format}?${params}`, (received) => setState({ now: 'reading', received }), controller.signal);
      setState({ now: 'done', text: t('download.saved', saved.filename, saved.rows) });
    } catch (failure) {
      setState(controller.signal.aborted ? { now: 'done', text: t('download.cancelled') } : { now: 'failed', message: messageOfFailure(failure), choice });
    } finally {
      if (reading.current === controller) reading.current = null;
    }
  }

  const choices = locale() === 'en' ? [CSV, XLSX] : [CSV, CSV_EXCEL, XLSX];
  const busy = state.now === 'reading';
  return (
    <>
      <div class="downloads" role="group" aria-label={t('download.whole')}>
        <span class="muted small" aria-hidden="true">
          {t('download.whole')}
        </span>
        {choices.map((choice) => (
          <button type="button" class="secondary" data-format={choice.label.slice('download.'.length)} disabled={busy} onClick={() => start(choice)}>
            {t(choice.label)}
          </button>
        ))}
      </div>
      {state.now === 'reading' && (
        <div class="download-status" role="status">
          {/* Without a value (a workbook: its records are not counted as it comes) the bar says only that it is under way. */}
          <progress aria-label={t('download.progress')} max={state.received.total ?? undefined} value={state.received.rows !== null && state.received.total ? state.received.rows : undefined} />
          <span>
            {t('download.received', state.received.bytes)}
            {state.received.rows !== null && state.received.total !== null && ` · ${t('download.rows', state.received.rows, state.received.total)}`}
          </span>
          <button type="button" class="secondary" onClick={() => reading.current?.abort()}>
            {t('common.cancel')}
          </button>
        </div>
      )}
      {state.now === 'done' && (
        <p class="download-status success" role="status">
          {state.text}
        </p>
      )}
      {state.now === 'failed' && (
        <div class="download-status">
          <Failure message={state.message} retry={() => start(state.choice)} />
        </div>
      )}
    </>
  );
}
