import type { Lang, Text, TextList } from '../seed/types.js';

/** The request language's text, or English when the record has no translation for it. */
export function tr(text: Text, lang: string): string {
  return text[lang as Lang] ?? text.en;
}

export function trList(list: TextList, lang: string): string[] {
  return list[lang as Lang] ?? list.en;
}

/** URL-friendly slug of a title: lower case ASCII words joined by dashes. */
export function slugify(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

const escapes: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"']/g, (c) => escapes[c] ?? c);
}

/** Plain text to HTML paragraphs: blank lines separate paragraphs. */
export function toHtml(s: string): string {
  return s
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, '<br>')}</p>`)
    .join('');
}
