// The reference operations. Order matters where a static segment and a parameter share a
// position (`/v1/phone/parse` before `/v1/phone/:ciso`): registered first, matched first.
import type { Operation } from '../types.js';
import { countryCities, stateCities } from './cities.js';
import { countriesList, countryDetail } from './countries.js';
import { currencyByCountry, currencyList } from './currency.js';
import { isoConvert, isoCountry, isoState } from './iso.js';
import { dataVersion } from './meta.js';
import { phoneByCountry, phoneList, phoneParse } from './phone.js';
import { regionDetail, regionSubregions, regionsList, subregionCountries, subregionDetail } from './regions.js';
import { countryStates, stateDetail, statesAll } from './states.js';
import { timezoneCity, timezoneCountry, timezoneState } from './timezone.js';

/** Countries, states, cities, regions, subregions, currency, phone, ISO, timezone, data version. */
export const referenceOperations: Operation[] = [
  countriesList,
  countryDetail,
  statesAll,
  countryStates,
  stateDetail,
  stateCities,
  countryCities,
  regionsList,
  regionDetail,
  regionSubregions,
  subregionDetail,
  subregionCountries,
  currencyList,
  currencyByCountry,
  phoneList,
  phoneParse,
  phoneByCountry,
  isoCountry,
  isoState,
  isoConvert,
  timezoneCountry,
  timezoneState,
  timezoneCity,
  dataVersion,
];
