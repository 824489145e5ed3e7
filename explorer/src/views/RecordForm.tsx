/**
 * A record's writable fields as a form (create and edit), from the list's write schema: a choice
 * as a select, a yes/no as a checkbox, numbers, dates and text as inputs. The API's messages per
 * field are shown next to their fields; others above the form.
 */
import { useState } from 'preact/hooks';
import { call, messageOf, type Row } from '../api';
import { messageOfFailure } from '../components';
import { t } from '../i18n';
import { type ResourceSpec, type WriteField } from '../spec';

type Values = Record<string, string | boolean>;

/** A record's value; for a new record the field's default (or a choice's first, when it may not be empty). */
const initialValue = (field: WriteField, record: Row | null): string | boolean => {
  const value = record ? record[field.name] : (field.default ?? (field.choices && !field.choices.includes('') && !field.choices.includes(null) ? field.choices[0] : undefined));
  if (field.type === 'boolean') return value === true;
  return value === null || value === undefined ? '' : String(value);
};

/** The value the API is sent for a form value: numbers as numbers, an empty optional as null. */
function sent(field: WriteField, value: string | boolean): unknown {
  if (field.type === 'boolean') return value;
  const text = String(value).trim();
  if (text === '') return field.nullable ? null : field.type === 'string' ? '' : null;
  if ((field.type === 'integer' || field.type === 'number') && !Number.isNaN(Number(text))) return Number(text);
  return text;
}

export function RecordForm({ spec, record, onSaved, onCancel }: { spec: ResourceSpec; record: Row | null; onSaved: (saved: Row) => void; onCancel?: () => void }) {
  const fields = spec.writes ?? [];
  const [values, setValues] = useState<Values>(() => Object.fromEntries(fields.map((field) => [field.name, initialValue(field, record)])));
  const [problems, setProblems] = useState<Record<string, string[]>>({});
  const [message, setMessage] = useState<string | null>(null);
  const [saving, setSaving] = useState(false);

  async function submit(event: Event) {
    event.preventDefault();
    setSaving(true);
    const changed = fields.filter((field) => !record || values[field.name] !== initialValue(field, record));
    const body = Object.fromEntries(changed.map((field) => [field.name, sent(field, values[field.name])]));
    let answer;
    try {
      answer = record ? await call<Row>(`/rest/v1/${spec.name}/${record.id}/`, 'PATCH', body) : await call<Row>(`/rest/v1/${spec.name}/`, 'POST', body);
    } catch (failure) {
      // Not sent (no answer): the form keeps what was typed, and its button sends it again.
      setSaving(false);
      return setMessage(messageOfFailure(failure));
    }
    setSaving(false);
    if (answer.ok) return onSaved(answer.body);
    const errors = (answer.body ?? {}) as Record<string, unknown>;
    const perField = Object.fromEntries(Object.entries(errors).filter(([key]) => fields.some((field) => field.name === key)).map(([key, value]) => [key, ([] as string[]).concat(value as string[])]));
    setProblems(perField);
    const rest = Object.fromEntries(Object.entries(errors).filter(([key]) => !(key in perField)));
    setMessage(Object.keys(rest).length ? messageOf(rest, answer.status) : Object.keys(perField).length ? t('form.correct') : t('error.status', answer.status));
  }

  return (
    <form class="record-form" onSubmit={submit} noValidate>
      {message && <p class="error" role="alert">{message}</p>}
      {fields.map((field) => {
        const id = `field-${field.name}`;
        const errorId = `${id}-error`;
        const invalid = problems[field.name] !== undefined;
        const common = { id, name: field.name, 'aria-required': field.required ? ('true' as const) : undefined, 'aria-invalid': invalid ? ('true' as const) : undefined, 'aria-describedby': invalid ? errorId : undefined };
        const set = (value: string | boolean) => setValues({ ...values, [field.name]: value });
        let input;
        if (field.type === 'boolean') input = <input type="checkbox" {...common} checked={values[field.name] === true} onChange={(event) => set(event.currentTarget.checked)} />;
        else if (field.choices) {
          input = (
            <select {...common} value={String(values[field.name])} onChange={(event) => set(event.currentTarget.value)}>
              {field.choices.map((choice) => (
                <option value={choice === null ? '' : String(choice)}>{choice === null || choice === '' ? '—' : String(choice)}</option>
              ))}
            </select>
          );
        } else if (field.type === 'string' && (field.maxLength === undefined || field.maxLength > 200)) input = <textarea {...common} rows={3} value={String(values[field.name])} onInput={(event) => set(event.currentTarget.value)} />;
        else {
          const type = field.type === 'integer' || field.type === 'number' ? 'number' : 'text';
          input = <input type={type} step={field.type === 'number' ? 'any' : undefined} maxLength={field.maxLength} {...common} value={String(values[field.name])} onInput={(event) => set(event.currentTarget.value)} />;
        }
        return (
          <div class={`form-field${invalid ? ' invalid' : ''}`}>
            <label for={id}>
              {field.title}
              {field.required && <span aria-hidden="true" title={t('form.required')}> *</span>}
            </label>
            {input}
            {field.description && <small class="muted">{field.description}</small>}
            {invalid && (
              <small id={errorId} class="error">
                {problems[field.name].join(' ')}
              </small>
            )}
          </div>
        );
      })}
      <div class="actions">
        <button type="submit" disabled={saving}>{record ? t('form.save') : t('form.create')}</button>
        {onCancel && (
          <button type="button" class="secondary" onClick={onCancel}>
            {t('common.cancel')}
          </button>
        )}
      </div>
    </form>
  );
}
