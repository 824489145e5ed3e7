/**
 * OPTIONS bodies, as DRF's SimpleMetadata writes them: name, description, renders, parses, and
 * for callers who may create records `actions.POST` describing each field (http.md).
 */
import { codes, codeLabel } from '../codelists/index.ts';
import { organisationsWithRole, writersOf, type Caller, type Resource, type StoredField } from '../resources/define.ts';

const label = (name: string) => `${name.charAt(0).toUpperCase()}${name.slice(1).replace(/_/g, ' ')}`;

function fieldType(field: StoredField): string {
  if (field.references) return 'field';
  if (field.codelist || field.choices) return 'choice';
  if (field.url) return 'url';
  if (field.email) return 'email';
  return { int: 'integer', decimal: 'decimal', text: 'string', date: 'date', timestamp: 'datetime', bool: 'boolean', json: 'json' }[field.type];
}

function describe(name: string, field: StoredField, readOnly: boolean): Record<string, unknown> {
  const description: Record<string, unknown> = { type: fieldType(field), required: field.required && !readOnly, read_only: readOnly, label: label(name) };
  if (field.maxLength !== undefined) description.max_length = field.maxLength;
  if (field.min !== undefined) description.min_value = field.min;
  if (field.max !== undefined) description.max_value = field.max;
  if (field.codelist) description.choices = codes(field.codelist).map((code) => ({ value: code, display_name: codeLabel(field.codelist!, code) }));
  else if (field.choices) description.choices = field.choices.map((choice) => ({ value: choice, display_name: String(choice) }));
  return description;
}

/** Whether the caller may create records of the resource at all (DRF's view-level check). */
function mayCreate(resource: Resource, caller: Caller): boolean {
  if (resource.readOnly) return false;
  if (caller.isAdmin) return true;
  const writers = writersOf(resource);
  return (writers.kind === 'partners' || writers.kind === 'authors') && organisationsWithRole(caller, writers.roles).length > 0;
}

export function metadata(resource: Resource, suffix: 'List' | 'Instance', caller: Caller): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: `${resource.title} ${suffix}`,
    description: resource.description,
    renders: ['application/json', 'application/xml', 'text/csv'],
    parses: ['application/json', 'application/x-www-form-urlencoded'],
  };
  if (suffix === 'List' && mayCreate(resource, caller)) {
    const service = new Set(['id', ...Object.values(resource.serviceFields ?? {})]);
    const fields = Object.fromEntries(
      Object.entries(resource.fields).map(([name, field]) =>
        field.kind === 'stored' ? [name, describe(name, field, service.has(name))] : [name, { type: 'field', required: false, read_only: true, label: label(name) }],
      ),
    );
    body.actions = { POST: fields };
  }
  return body;
}
