// City `kind` (nearby search): the one table mapping the dataset's city `type` values to the four
// kinds of the spec. Every value present in the full dataset (countries-states-cities
// `contributions/cities`, 152,977 rows) is listed; anything else, null or absent is `unknown`.
// Values follow GeoNames feature codes where the source took them from there
// (gov_seat = PPLG, historical = PPLH, abandoned = PPLQ, destroyed = PPLW, religious = PPLR).

export const CITY_KINDS = ['settlement', 'administrative', 'section', 'unknown'] as const;
export type CityKind = (typeof CITY_KINDS)[number];

/** Kind codes are positions in CITY_KINDS, so a Uint8Array can hold one kind per city row. */
export const KIND_CODE: Readonly<Record<CityKind, number>> = { settlement: 0, administrative: 1, section: 2, unknown: 3 };

/** City `type` value (lower-cased, trimmed) → kind. Counts are rows in the full dataset. */
export const CITY_TYPE_KINDS: Readonly<Record<string, CityKind>> = {
  // populated places
  city: 'settlement', //          31,442
  capital: 'settlement', //          270
  locality: 'settlement', //         233
  town: 'settlement', //              48
  cities: 'settlement', //            10
  settlement: 'settlement', //         9
  gov_seat: 'settlement', //           6 seat of government (The Hague, La Paz)
  village: 'settlement', //            5
  historical: 'settlement', //         4 historical populated place
  township: 'settlement', //           3
  destroyed: 'settlement', //          2 destroyed populated place
  abandoned: 'settlement', //          2 abandoned populated place
  religious: 'settlement', //          1 religious populated place
  // administrative divisions recorded as cities
  adm2: 'administrative', //       8,712
  adm3: 'administrative', //       6,110
  adm1: 'administrative', //       3,155
  district: 'administrative', //   2,327
  county: 'administrative', //     1,415
  regency: 'administrative', //      390
  prefecture: 'administrative', //   368
  municipality: 'administrative', // 173
  adm4: 'administrative', //         160
  banner: 'administrative', //        52
  province: 'administrative', //      35
  parish: 'administrative', //        16
  area: 'administrative', //          12 (CN level-2 areas)
  'special municipality': 'administrative', // 6
  'administrative zone': 'administrative', //  5
  subdistrict: 'administrative', //    1
  adm5: 'administrative', //           0 (named by the spec's adm1–adm5)
  // parts of a populated place
  section: 'section', //           1,357
  // null: 1,898 rows; absent (npm-package rows): 94,750 rows → unknown
};

/** The kind of a city from its `type` value. */
export function cityKind(type: string | null | undefined): CityKind {
  if (type == null) return 'unknown';
  const key = type.trim().toLowerCase();
  // hasOwn: a type such as "constructor" must not reach Object.prototype.
  return Object.hasOwn(CITY_TYPE_KINDS, key) ? CITY_TYPE_KINDS[key]! : 'unknown';
}

export function isCityKind(value: string): value is CityKind {
  return (CITY_KINDS as readonly string[]).includes(value);
}
