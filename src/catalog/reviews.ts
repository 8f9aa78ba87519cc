import { Type, type Static } from 'typebox';
import { errors } from '../http/errors.js';
import { page, paging } from '../http/pagination.js';
import type { ActivityRecord, Lang } from '../seed/types.js';

/**
 * Reviews of an activity, derived from its aggregate counts so that list and aggregate agree:
 * reviews_aggregated_info says how many of each star there are, this writes them out. The text
 * and dates come from a small generator keyed on the activity's uuid, so they are the same on
 * every run of a seed without storing them.
 */
export interface ReviewRecord {
  uuid: string;
  rating: number;
  locale: Lang;
  title: string;
  /** Empty for a rating without words (include_empty=NO leaves these out). */
  body: string;
  author: string;
  customer_country: string;
  /** YYYY-MM-DD, newest first in generation order. */
  date: string;
  traveler_type: 'ALONE' | 'AS-A-COUPLE' | 'WITH-FAMILY' | 'WITH-FRIENDS';
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}

function rng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const WORDS: Record<Lang, [string[], string[]]> = {
  en: [['Unforgettable', 'Good value', 'Too crowded', 'Worth it', 'Disappointing'], ['guide was great', 'we loved every minute', 'queue was long', 'would book again', 'not as described']],
  it: [['Indimenticabile', 'Buon rapporto qualità-prezzo', 'Troppa folla', 'Ne vale la pena', 'Deludente'], ['guida bravissima', 'ci è piaciuto tutto', 'coda lunga', 'lo rifarei', 'non come descritto']],
  de: [['Unvergesslich', 'Preiswert', 'Zu voll', 'Lohnt sich', 'Enttäuschend'], ['toller Guide', 'jede Minute genossen', 'lange Schlange', 'gerne wieder', 'nicht wie beschrieben']],
  fr: [['Inoubliable', 'Bon rapport qualité-prix', 'Trop de monde', 'Ça vaut le coup', 'Décevant'], ['guide formidable', 'nous avons adoré', 'longue file', 'à refaire', 'pas comme décrit']],
  es: [['Inolvidable', 'Buena relación calidad-precio', 'Demasiada gente', 'Merece la pena', 'Decepcionante'], ['guía estupendo', 'nos encantó', 'cola larga', 'repetiría', 'no como se describe']],
};
const COUNTRIES = ['US', 'GB', 'IT', 'DE', 'FR', 'ES', 'NL', 'CA', 'AU'];
const TYPES = ['ALONE', 'AS-A-COUPLE', 'WITH-FAMILY', 'WITH-FRIENDS'] as const;
const NAMES = ['Anna', 'Luca', 'Marie', 'John', 'Sofia', 'Hans', 'Lucía', 'Tom', 'Giulia', 'Pierre'];

const cache = new WeakMap<ActivityRecord, ReviewRecord[]>();

/** Every review of the activity (capped at 200: the aggregate still counts them all). */
export function reviewsOf(a: ActivityRecord): ReviewRecord[] {
  const hit = cache.get(a);
  if (hit) return hit;
  const random = rng(hash(a.uuid));
  const out: ReviewRecord[] = [];
  const langs = a.content_languages.length ? a.content_languages : (['en'] as Lang[]);
  // Day 0 is a fixed date, not the clock, so a review never changes its date between runs.
  const epoch = Date.UTC(2026, 0, 1);
  for (let star = 5; star >= 1; star--) {
    const n = Math.min(a.reviews_aggregated_info[String(star) as '1'] ?? 0, 200 - out.length);
    for (let i = 0; i < n; i++) {
      const locale = langs[Math.floor(random() * langs.length)] ?? 'en';
      const [titles, bodies] = WORDS[locale];
      const k = 5 - star;
      out.push({
        uuid: uuidFrom(random),
        rating: star,
        locale,
        title: titles[k] ?? '',
        body: random() < 0.2 ? '' : `${titles[k]}: ${bodies[k]}.`,
        author: NAMES[Math.floor(random() * NAMES.length)] ?? 'Anna',
        customer_country: COUNTRIES[Math.floor(random() * COUNTRIES.length)] ?? 'US',
        date: new Date(epoch - Math.floor(random() * 700) * 86_400_000).toISOString().slice(0, 10),
        traveler_type: TYPES[Math.floor(random() * TYPES.length)] ?? 'ALONE',
      });
    }
  }
  cache.set(a, out);
  return out;
}

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-${'89ab'[Math.floor(random() * 4)]}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** Query of the deprecated comments endpoints (activities and events alike). */
export const CommentsQuery = Type.Object({
  ...paging(),
  include_empty: Type.Enum(['YES', 'NO'], { default: 'YES' }),
  locale: Type.Optional(Type.String()),
  rating_in: Type.Optional(Type.String({ pattern: '^\\d+(,\\d+)*$', description: 'one value: at least; two values: inclusive range' })),
  sort_by: Type.Enum(['DATE', '-DATE', 'RATING', '-RATING'], { default: '-DATE' }),
});

/** rating_in: "4" means 4 or more, "2,4" means 2 to 4; more values are refused. */
function ratingRange(v: string | undefined): [number, number] {
  if (v === undefined) return [0, 5];
  const n = v.split(',').map(Number);
  if (n.length > 2) throw errors.validation('querystring "rating_in" takes one value (at least) or two (a range)');
  return [n[0] ?? 0, n[1] ?? 5];
}

const byDate = (a: ReviewRecord, b: ReviewRecord) => (a.date < b.date ? -1 : a.date > b.date ? 1 : 0);

/** The deprecated Comment list of activities (one, or a venue's), filtered, sorted and paged as the query says. */
export function commentsOf(activities: ActivityRecord[], q: Static<typeof CommentsQuery>) {
  const [min, max] = ratingRange(q.rating_in);
  const list = activities.flatMap(reviewsOf).filter(
    (r) => r.rating >= min && r.rating <= max && (q.include_empty === 'YES' || r.body !== '') && (!q.locale || r.locale === q.locale.slice(0, 2)),
  );
  const key = q.sort_by.replace('-', '');
  const dir = q.sort_by.startsWith('-') ? -1 : 1;
  list.sort((x, y) => dir * (key === 'RATING' ? x.rating - y.rating || byDate(x, y) : byDate(x, y)));
  return page(list, q).map((r) => ({
    uuid: r.uuid, status: 'APPROVED', author: { firstname: r.author }, locale: r.locale, pictures: [],
    title: r.title, body: r.body, rating: r.rating, sent_at: `${r.date}T12:00:00+0000`,
  }));
}
