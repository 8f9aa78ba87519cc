import { Memo } from '../memo.js';

/** Locales the mock serves content in; anything else falls back to the default (English). */
export const SUPPORTED_LOCALES = ['en-US', 'en-GB', 'it-IT', 'de-DE', 'fr-FR', 'es-ES'] as const;
export const DEFAULT_LOCALE = 'en-US';

export interface ResolvedLocale {
  /** The locale used for formatting, e.g. it-IT. */
  locale: string;
  /** Two-letter language of the content, e.g. it. */
  language: string;
  /** True when the request asked for a language the mock does not have. */
  fellBack: boolean;
}

const byLanguage = new Map<string, string>();
for (const l of SUPPORTED_LOCALES) if (!byLanguage.has(l.slice(0, 2))) byLanguage.set(l.slice(0, 2), l);
const exact = new Map<string, string>(SUPPORTED_LOCALES.map((l) => [l.toLowerCase(), l]));

const cache = new Memo<ResolvedLocale>(1000);

/**
 * Resolves an Accept-Language value ("it-IT,it;q=0.9,en;q=0.5", "de", "*") to a supported locale:
 * the highest-weighted tag that matches exactly, else by language; else English, marked fellBack.
 */
export function resolveLocale(header: string | undefined): ResolvedLocale {
  const key = header ?? '';
  return cache.get(key, () => compute(key));
}

function compute(header: string): ResolvedLocale {
  const fallback = { locale: DEFAULT_LOCALE, language: 'en' };
  if (header.trim() === '' || header.trim() === '*') return { ...fallback, fellBack: false };
  const tags = header
    .split(',')
    .map((part, i) => {
      const [tag = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      const weight = q ? Number(q.slice(2)) : 1;
      return { tag: tag.trim().replace('_', '-').toLowerCase(), weight: Number.isFinite(weight) ? weight : 0, i };
    })
    .filter((t) => t.tag !== '' && t.weight > 0)
    .sort((a, b) => b.weight - a.weight || a.i - b.i);
  for (const { tag } of tags) {
    const locale = exact.get(tag) ?? byLanguage.get(tag.slice(0, 2));
    if (locale) return { locale, language: locale.slice(0, 2), fellBack: false };
  }
  return { ...fallback, fellBack: true };
}
