/**
 * Hides secrets in what the request journal keeps and shows: credentials of the partner API (an
 * Authorization header, client_secret, access and refresh tokens, passwords) are the tester's own,
 * and the journal is readable by anyone who reaches the control API or sees the dashboard.
 */
export const MASK = '***';

/** Names of fields, query parameters and headers whose values are secret; `token_type` and `expires_in` are not. */
const SECRET_NAME = /secret|passw(?:or)?d|passphrase|api[-_]?key|(?:^|[-_])token$|^authorization$|^cookie$|^set-cookie$/i;

export const isSecretName = (name: string) => SECRET_NAME.test(name);

/** `Bearer abc` -> `Bearer ***`: the scheme tells a tester which kind of credentials were sent. */
export function redactAuthorization(value: string): string {
  const m = /^(\S+)\s+\S/.exec(value);
  return m ? `${m[1]} ${MASK}` : MASK;
}

// A JSON member whose name is secret and whose value is a string, a number or a literal; and a
// form/query pair. Text, not parsed JSON: a body cut at the size cap no longer parses.
const JSON_MEMBER = /("((?:[^"\\]|\\.)*)"\s*:\s*)("(?:[^"\\]|\\.)*"?|[-\w.+]+)/g;
const FORM_PAIR = /(^|[?&])([^=&#]*)=([^&#]*)/g;

/** Secret members of a JSON text (even a cut one) and secret pairs of a form or query string, masked. */
export function redactText(text: string): string {
  let out = text.includes(':') ? text.replace(JSON_MEMBER, (all, head: string, name: string) => (isSecretName(name) ? `${head}"${MASK}"` : all)) : text;
  // A form or query string; not JSON, whose strings may hold '=' (a URL's query is masked by its member's name).
  if (out.includes('=') && !/^\s*[[{"]/.test(out)) out = redactQuery(out);
  return out;
}

/** Secret values of a query string (`?client_secret=x` -> `?client_secret=***`), the rest as it was. */
export function redactQuery(text: string): string {
  return text.replace(FORM_PAIR, (all, sep: string, name: string) => {
    let decoded = name;
    try {
      decoded = decodeURIComponent(name);
    } catch {
      // a malformed escape: judged as written
    }
    return isSecretName(decoded) ? `${sep}${name}=${MASK}` : all;
  });
}

/** A URL's query made safe; cheap when there is nothing to hide (the journal does this on every request). */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0 || !/secret|passw|passphrase|key|token|authorization|cookie/i.test(url.slice(q))) return url;
  return url.slice(0, q) + redactQuery(url.slice(q));
}

type HeaderValue = string | number | string[] | undefined;

/** Headers as one string each (repeated ones joined), secret ones masked (Authorization keeping its scheme). */
export function redactHeaders(headers: Record<string, HeaderValue>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, raw] of Object.entries(headers)) {
    if (raw === undefined) continue;
    const value = Array.isArray(raw) ? raw.join(', ') : String(raw);
    const lower = name.toLowerCase();
    out[lower] = lower === 'authorization' || lower === 'proxy-authorization' ? redactAuthorization(value) : isSecretName(lower) ? MASK : value;
  }
  return out;
}
