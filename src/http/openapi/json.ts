/**
 * The document's smallest pieces, used by every other file here: a JSON object, a TypeBox
 * schema turned plain JSON Schema, a `$ref` to a component, a JSON body.
 */

export type Json = Record<string, unknown>;

/** A TypeBox schema as plain JSON Schema (TypeBox marks its objects with symbols). */
export const plain = (schema: unknown): Json => JSON.parse(JSON.stringify(schema)) as Json;
export const ref = (kind: 'schemas' | 'responses' | 'parameters' | 'headers', name: string) => ({ $ref: `#/components/${kind}/${name}` });
export const jsonContent = (schema: Json) => ({ 'application/json': { schema } });
