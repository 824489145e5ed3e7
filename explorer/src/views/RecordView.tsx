/**
 * One record with its fields labelled, foreign keys as links to the records they name, and, for a
 * signed-in editor, edit and delete (and, at `new`, the form to create one).
 */
import { useState } from 'preact/hooks';
import { call, get, messageOf, session, type Row } from '../api';
import { Link, messageOfFailure, recordPath, show, Status, useRead } from '../components';
import { t } from '../i18n';
import { navigate } from '../router';
import type { ResourceSpec } from '../spec';
import { RecordForm } from './RecordForm';

export function NewRecord({ spec }: { spec: ResourceSpec }) {
  return (
    <section aria-labelledby="record-title">
      <h1 id="record-title" tabIndex={-1}>{t('record.new', spec.title)}</h1>
      {session.token() ? <RecordForm spec={spec} record={null} onSaved={(saved) => navigate(`/explore/${spec.name}/${saved.id}/`)} onCancel={() => history.back()} /> : <p>{t('record.signInToCreate')}</p>}
    </section>
  );
}

export function RecordView({ spec, id }: { spec: ResourceSpec; id: string }) {
  // A new record or id is a new view (main.tsx keys it), so this reads once, and again on Retry.
  const { data: record, error, retry, set: setRecord } = useRead(() => get<Row>(`/rest/v1/${spec.name}/${id}/`), [spec.name, id]);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  async function remove() {
    if (!confirm(t('record.confirmDelete', spec.title, id))) return;
    try {
      const answer = await call(`/rest/v1/${spec.name}/${id}/`, 'DELETE');
      if (answer.status === 204) navigate(`/explore/${spec.name}/`);
      else setNotice(messageOf(answer.body, answer.status));
    } catch (failure) {
      setNotice(messageOfFailure(failure));
    }
  }

  const canWrite = spec.writes !== null && session.token() !== null;
  return (
    <section aria-labelledby="record-title">
      <nav class="breadcrumb" aria-label={t('record.breadcrumb')}>
        <Link href={`/explore/${spec.name}/`}>{spec.title}</Link> › {id}
      </nav>
      <h1 id="record-title" tabIndex={-1}>
        {spec.title} {id}
      </h1>
      <Status loading={!record && !error} error={error} retry={retry} />
      {notice && <p class="error" role="alert">{notice}</p>}
      {record && canWrite && !editing && (
        <div class="actions">
          <button type="button" onClick={() => setEditing(true)}>{t('record.edit')}</button>
          <button type="button" class="danger" onClick={remove}>{t('record.delete')}</button>
        </div>
      )}
      {record && editing && (
        <RecordForm
          spec={spec}
          record={record}
          onSaved={(saved) => {
            setRecord(saved);
            setEditing(false);
            setNotice(null);
          }}
          onCancel={() => setEditing(false)}
        />
      )}
      {record && !editing && (
        <dl class="record">
          {spec.fields.map((field) => {
            const value = record[field.name];
            const target = field.references ? recordPath(field.references, value) : null;
            return (
              <>
                <dt>{field.title}</dt>
                <dd data-field={field.name}>{target ? <Link href={target}>{field.references === 'project' ? t('record.project', String(value)) : t('record.organisation', String(value))}</Link> : show(value)}</dd>
              </>
            );
          })}
        </dl>
      )}
    </section>
  );
}
