import type { FastifyInstance } from 'fastify';
import { errors } from './errors.js';

/** Deepest nesting of arrays and objects a JSON request body may have. */
export const MAX_JSON_DEPTH = 64;

/**
 * How deep arrays and objects nest in a JSON text, by a linear scan that counts brackets outside
 * strings (no recursion, so a 1 MB body of `[[[[…` cannot overflow the stack here). Invalid JSON
 * gives some number too; JSON.parse refuses it afterwards.
 */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Jump to the closing quote: one preceded by an even number of backslashes.
      let end = text.indexOf('"', i + 1);
      while (end !== -1) {
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === 0x5c) slashes++;
        if (slashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end === -1) return max;
      i = end;
    } else if (c === 0x5b || c === 0x7b) {
      if (++depth > max) max = depth;
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    }
  }
  return max;
}

/** The application/json body parser of every route. */
export function installJsonBodyParser(app: FastifyInstance): void {
  // Many clients POST with Content-Type application/json and no body (POST /carts): an empty body
  // means no body here, not a 400; anything else goes through Fastify's own (prototype-safe) parser.
  // This is the only body parser: Fastify's default text/plain one is removed, so a text/plain body
  // (like any type but JSON, e.g. application/xml) answers 415 naming the type instead of reaching
  // the body schema as a string and failing validation with a 400. Requests without a body and
  // without a Content-Type never reach a parser. A new parser must check the depth too: bodies
  // nested deeper than MAX_JSON_DEPTH are refused before parsing, since handlers, the store and
  // JSON.stringify all recurse over them.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = body as string;
    if (text.trim() === '') return done(null, undefined);
    const depth = jsonNestingDepth(text);
    if (depth > MAX_JSON_DEPTH) {
      return done(errors.validation(`Request body is nested ${depth} levels deep; at most ${MAX_JSON_DEPTH} are allowed`), undefined);
    }
    json(request, text, (err, value) => {
      if (!err) return done(null, value);
      // Fastify's parser says "not valid JSON" for valid JSON with a prototype-poisoning key too.
      try {
        JSON.parse(text);
      } catch {
        return done(err, undefined);
      }
      done(errors.validation('Request body may not have a "__proto__" key, nor a "constructor" object with a "prototype" key'), undefined);
    });
  });
}
