// Currency info of countries (spec "Currency info"): code always present, name/symbol or null.
import type { CountryRecord } from '../format/model.js';
import type { Store } from '../store/types.js';
import { perStore } from './per-store.js';

export interface CurrencyInfo {
  country: string;
  currency: { code: string; name: string | null; symbol: string | null };
}

/** The currency info of a country, or null when it has no currency code. */
export function currencyOf(country: CountryRecord): CurrencyInfo | null {
  if (!country.currency || country.currency.trim() === '') return null;
  return {
    country: country.iso2,
    currency: { code: country.currency, name: country.currency_name || null, symbol: country.currency_symbol || null },
  };
}

const byCountry = perStore((store) => {
  const list: CurrencyInfo[] = [];
  for (let row = 0; row < store.countries.count; row++) {
    const info = currencyOf(store.countries.record(row));
    if (info) list.push(info);
  }
  return list.sort((a, b) => (a.country < b.country ? -1 : a.country > b.country ? 1 : 0));
});

/** Every country with a currency, sorted by alpha-2; `code` (upper case) keeps that currency only. */
export function currencyList(store: Store, code: string | null): CurrencyInfo[] {
  const all = byCountry.get(store);
  return code === null ? all : all.filter((info) => info.currency.code.toUpperCase() === code);
}
