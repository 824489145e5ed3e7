/**
 * One record with its fields labelled, foreign keys as links to the records they name, and, for a
 * signed-in editor, edit and delete (and, at `new`, the form to create one).
 */
import { useEffect, useState } from 'preact/hooks';
import { call, messageOf, session, type Row } from '../api';
import { Link, recordPath, show, Status } from '../components';
import { navigate } from '../router';
import { label, type ResourceSpec } from '../spec';
import { RecordForm } from './RecordForm';

export function NewRecord({ spec }: { spec: ResourceSpec }) {
  return (
    <section aria-labelledby="record-title">
      <h1 id="record-title" tabIndex={-1}>New {spec.title.toLowerCase()}</h1>
      {session.token() ? <RecordForm spec={spec} record={null} onSaved={(saved) => navigate(`/explore/${spec.name}/${saved.id}/`)} onCancel={() => history.back()} /> : <p>Sign in with an API token to create records.</p>}
    </section>
  );
}

export function RecordView({ spec, id }: { spec: ResourceSpec; id: string }) {
  const [record, setRecord] = useState<Row | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [editing, setEditing] = useState(false);
  const [notice, setNotice] = useState<string | null>(null);

  useEffect(() => {
    setRecord(null);
    setEditing(false);
    call<Row>(`/rest/v1/${spec.name}/${id}/`).then(
      (answer) => (answer.ok ? (setRecord(answer.body), setError(null)) : setError(messageOf(answer.body, answer.status))),
      (failure: Error) => setError(failure.message),
    );
  }, [spec.name, id]);

  async function remove() {
    if (!confirm(`Delete ${spec.title.toLowerCase()} ${id}?`)) return;
    const answer = await call(`/rest/v1/${spec.name}/${id}/`, 'DELETE');
    if (answer.status === 204) navigate(`/explore/${spec.name}/`);
    else setNotice(messageOf(answer.body, answer.status));
  }

  const canWrite = spec.writes !== null && session.token() !== null;
  return (
    <section aria-labelledby="record-title">
      <p class="breadcrumb">
        <Link href={`/explore/${spec.name}/`}>{spec.title}</Link> › {id}
      </p>
      <h1 id="record-title" tabIndex={-1}>
        {spec.title} {id}
      </h1>
      <Status loading={!record && !error} error={error} />
      {notice && <p class="error" role="alert">{notice}</p>}
      {record && canWrite && !editing && (
        <div class="actions">
          <button type="button" onClick={() => setEditing(true)}>Edit</button>
          <button type="button" class="danger" onClick={remove}>Delete</button>
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
                <dd data-field={field.name}>{target ? <Link href={target}>{`${label(field.references!)} ${show(value)}`}</Link> : show(value)}</dd>
              </>
            );
          })}
        </dl>
      )}
    </section>
  );
}
