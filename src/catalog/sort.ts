/** sort_by values the reference lists for GET /activities; '-' means descending. */
export const SORT_KEYS = [
  'relevance', 'distance', 'price', 'rating', 'relevance-venue', 'relevance-city', 'relevance-category', 'relevance-external',
] as const;
export type SortKey = (typeof SORT_KEYS)[number];

/**
 * The other spelling of some keys: the reference lists `venue-relevance`, `city-relevance`,
 * `category-relevance` and `external-relevance` for the city, category and venue activity lists
 * (and `relevance-city`, `relevance-external` there too). The references disagree, so every
 * activity listing accepts both spellings; each names the same key.
 */
export const SORT_ALIASES: Readonly<Record<string, SortKey>> = {
  'venue-relevance': 'relevance-venue',
  'city-relevance': 'relevance-city',
  'category-relevance': 'relevance-category',
  'external-relevance': 'relevance-external',
};

/**
 * Every sort_by value of every activity listing (GET /activities and /cities, /categories and
 * /venues/{id}/activities): each key in both spellings, as it is or with '-' to reverse it.
 */
export const SORT_VALUES: readonly string[] = [...SORT_KEYS, ...Object.keys(SORT_ALIASES)].flatMap((k) => [k, `-${k}`]);
