/**
 * Bodies DRF's parsers accept on RSR (REST_FRAMEWORK.DEFAULT_PARSER_CLASSES): JSON (an empty
 * body is an empty object), HTML forms and multipart forms (their files ignored: no field of
 * these resources is a file); any other media type is 415 (http.md, Errors). A body JSON cannot
 * read is refused in Python's words, as DRF's JSONParser refuses it.
 */
import { Busboy, type BusboyHeaders } from '@fastify/busboy';
import type { FastifyInstance } from 'fastify';
import { jsonParseError, multipartParseError, refusedByFramework } from './errors.ts';
import { pythonDecodeError, pythonJsonError } from './python-json.ts';

/** Bytes read as UTF-8 keep a leading byte-order mark, which Python's json refuses. */
const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function parseJson(body: Buffer): unknown {
  if (body.length === 0) return {};
  const undecodable = pythonDecodeError(body);
  if (undecodable) throw jsonParseError(undecodable);
  const text = UTF8.decode(body);
  try {
    return JSON.parse(text);
  } catch (error) {
    throw jsonParseError(pythonJsonError(text) ?? (error as Error).message);
  }
}

/** The text fields of a multipart body; the last value of a repeated name, as a form's. */
function parseMultipart(app: FastifyInstance, headers: BusboyHeaders, payload: NodeJS.ReadableStream, done: (error: Error | null, body?: unknown) => void): void {
  let parser: InstanceType<typeof Busboy>;
  try {
    parser = new Busboy({ headers, limits: { fieldSize: app.initialConfig.bodyLimit } });
  } catch {
    // Django's words for a multipart body without a boundary.
    return done(multipartParseError('Invalid boundary in multipart: None'));
  }
  const fields: Record<string, string> = {};
  let size = 0;
  let finished = false;
  const finish = (error: Error | null) => {
    if (finished) return;
    finished = true;
    done(error, error ? undefined : fields);
  };
  payload.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > (app.initialConfig.bodyLimit ?? Infinity)) {
      payload.unpipe(parser);
      finish(refusedByFramework(413, 'Request body is too large'));
    }
  });
  parser.on('field', (name, value) => {
    fields[name] = value;
  });
  parser.on('file', (name, stream) => stream.resume());
  parser.on('error', (error: Error) => finish(multipartParseError(error.message)));
  parser.on('finish', () => finish(null));
  payload.pipe(parser);
}

export function registerBodyParsers(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    try {
      done(null, parseJson(body as Buffer));
    } catch (error) {
      done(error as Error, undefined);
    }
  });
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string' }, (request, body, done) => {
    done(null, Object.fromEntries(new URLSearchParams(body as string)));
  });
  app.addContentTypeParser('multipart/form-data', (request, payload, done) => {
    parseMultipart(app, request.headers as BusboyHeaders, payload, done);
  });
}
