/** JSON Schemas of the responses, generated from the declarations; Fastify compiles them into serializers. */
import { Type, type TObject } from '@sinclair/typebox';
import { Nullable, type Resource } from '../resources/define.ts';

const records = new WeakMap<Resource, TObject>();

/** One record's schema, one object per resource (Fastify compiles a serializer once per schema object). */
export function recordSchema(resource: Resource): TObject {
  let schema = records.get(resource);
  if (!schema) records.set(resource, (schema = Type.Object(Object.fromEntries(Object.entries(resource.fields).map(([name, field]) => [name, field.schema])))));
  return schema;
}

export function pageSchema(resource: Resource): TObject {
  return Type.Object({
    count: Type.Integer(),
    next: Nullable(Type.String()),
    previous: Nullable(Type.String()),
    results: Type.Array(recordSchema(resource)),
  });
}

/** `/api/v1/`: the original's older offset envelope. */
export function legacySchema(resource: Resource): TObject {
  return Type.Object({
    meta: Type.Object({
      limit: Type.Integer(),
      next: Nullable(Type.String()),
      offset: Type.Integer(),
      previous: Nullable(Type.String()),
      total_count: Type.Integer(),
    }),
    objects: Type.Array(recordSchema(resource)),
  });
}
