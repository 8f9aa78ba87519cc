// Webhook URLs: checked, redacted and split into URL and credentials, without the HTTP client (the
// CLI checks --webhook-url before it loads the server).
import { clip } from '../http/errors.js';

/**
 * Why a webhook URL cannot be used, or null when it can: the flag, the env and the control API all
 * refuse it up front, rather than take it and fail every attempt later.
 */
export function webhookUrlProblem(raw: string): string | null {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    return `"${clip(raw)}" is not a URL`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `"${clip(raw)}" must be an http or https URL`;
  try {
    splitCredentials(raw);
  } catch {
    // Not echoed: the value holds a password.
    return 'the URL has user:password credentials that are not valid percent-encoding';
  }
  return null;
}

/** The URL with its password hidden, for terminals, logs and control answers. */
export function redactUrl(raw: string): string {
  const u = new URL(raw);
  if (u.password) u.password = '***';
  return u.toString();
}

/** A URL with the user:password part removed, and the Authorization header it stands for. */
export function splitCredentials(raw: string): { url: URL; authorization: string | null } {
  const url = new URL(raw);
  let authorization: string | null = null;
  if (url.username !== '' || url.password !== '') {
    const user = decodeURIComponent(url.username);
    const pass = decodeURIComponent(url.password);
    authorization = `Basic ${Buffer.from(`${user}:${pass}`, 'utf8').toString('base64')}`;
    url.username = '';
    url.password = '';
  }
  return { url, authorization };
}
