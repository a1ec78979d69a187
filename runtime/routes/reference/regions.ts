// GET /v1/regions, /v1/regions/{id}, /v1/regions/{id}/subregions, /v1/subregions/{id},
// /v1/subregions/{id}/countries (feature regionsApi).
import { COUNTRY_FIELDS, REGION_FIELDS, SUBREGION_FIELDS } from '../../render/fields.js';
import { serializeObject } from '../../render/projection.js';
import { listParams, listParamSpecs, pathSpec, type ListParamOptions } from '../params.js';
import type { Operation } from '../types.js';
import { CACHE_DAY, renderedJson, listReply, notFound, pathId, projectionOf, withLocale } from './common.js';

const LIST: ListParamOptions = { q: true, sort: true, localized: true };
const DETAIL: ListParamOptions = { localized: true };
const REGION_ID = pathSpec('id', 'Region id (an integer, see GET /v1/regions).', '2', { pattern: '^[0-9]{1,10}$' });
const SUBREGION_ID = pathSpec('id', 'Subregion id (an integer, see GET /v1/regions/{id}/subregions).', '6', { pattern: '^[0-9]{1,10}$' });
const REGION_RESPONSE = { tierOf: 'tier', schemas: { basic: 'region.basic', coordinates: 'region.coordinates', full: 'region.coordinates' } } as const;
const SUBREGION_RESPONSE = { tierOf: 'tier', schemas: { basic: 'subregion.basic', coordinates: 'subregion.coordinates', full: 'subregion.coordinates' } } as const;
const COUNTRIES_RESPONSE = { tierOf: 'countryTier', schemas: { basic: 'country.basic', full: 'country.full' }, list: true } as const;

export const regionsList: Operation = {
  name: 'regionsList',
  path: '/v1/regions',
  errorShape: 'A',
  params: listParamSpecs(REGION_FIELDS, LIST),
  doc: { tag: 'Regions', summary: 'List world regions', response: { ...REGION_RESPONSE, list: true }, statuses: [400] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, REGION_FIELDS, tier, LIST);
    const regions = ctx.store.regions;
    return listReply(ctx, {
      set: REGION_FIELDS,
      tier,
      params,
      count: regions.count,
      rowAt: (i) => i,
      record: (row) => regions.record(row),
      entity: 'regions',
      cacheControl: CACHE_DAY,
    });
  },
};

export const regionDetail: Operation = {
  name: 'regionDetail',
  path: '/v1/regions/:id',
  errorShape: 'A',
  params: [REGION_ID, ...listParamSpecs(REGION_FIELDS, DETAIL)],
  doc: { tag: 'Regions', summary: 'One region', response: REGION_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, REGION_FIELDS, tier, DETAIL);
    const id = pathId(ctx.params.id);
    const row = id === null ? -1 : ctx.store.regions.rowById(id);
    if (row < 0) throw notFound('Region not found.');
    const projection = projectionOf(REGION_FIELDS, tier, params);
    return renderedJson(() => serializeObject(projection, withLocale(ctx.store.regions.record(row), projection, params.locale)), CACHE_DAY);
  },
};

export const regionSubregions: Operation = {
  name: 'regionSubregions',
  path: '/v1/regions/:id/subregions',
  errorShape: 'A',
  params: [REGION_ID, ...listParamSpecs(SUBREGION_FIELDS, LIST)],
  doc: { tag: 'Regions', summary: 'Subregions of a region', response: { ...SUBREGION_RESPONSE, list: true }, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, SUBREGION_FIELDS, tier, LIST);
    const id = pathId(ctx.params.id);
    const regionRow = id === null ? -1 : ctx.store.regions.rowById(id);
    if (regionRow < 0) throw notFound('Region not found.');
    const rows = ctx.engine.subregionRowsOfRegion(regionRow);
    const subregions = ctx.store.subregions;
    return listReply(ctx, {
      set: SUBREGION_FIELDS,
      tier,
      params,
      count: rows.length,
      rowAt: (i) => rows[i]!,
      record: (row) => subregions.record(row),
      entity: 'subregions',
      cacheControl: CACHE_DAY,
    });
  },
};

export const subregionDetail: Operation = {
  name: 'subregionDetail',
  path: '/v1/subregions/:id',
  errorShape: 'A',
  params: [SUBREGION_ID, ...listParamSpecs(SUBREGION_FIELDS, DETAIL)],
  doc: { tag: 'Regions', summary: 'One subregion', response: SUBREGION_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.tier;
    const params = listParams(ctx, SUBREGION_FIELDS, tier, DETAIL);
    const id = pathId(ctx.params.id);
    const row = id === null ? -1 : ctx.store.subregions.rowById(id);
    if (row < 0) throw notFound('Subregion not found.');
    const projection = projectionOf(SUBREGION_FIELDS, tier, params);
    return renderedJson(() => serializeObject(projection, withLocale(ctx.store.subregions.record(row), projection, params.locale)), CACHE_DAY);
  },
};

export const subregionCountries: Operation = {
  name: 'subregionCountries',
  path: '/v1/subregions/:id/countries',
  errorShape: 'A',
  params: [SUBREGION_ID, ...listParamSpecs(COUNTRY_FIELDS, LIST)],
  doc: { tag: 'Regions', summary: 'Countries of a subregion', response: COUNTRIES_RESPONSE, statuses: [400, 404] },
  handle(ctx) {
    const tier = ctx.caller.countryTier;
    const params = listParams(ctx, COUNTRY_FIELDS, tier, LIST);
    const id = pathId(ctx.params.id);
    const subregionRow = id === null ? -1 : ctx.store.subregions.rowById(id);
    if (subregionRow < 0) throw notFound('Subregion not found.');
    const rows = ctx.engine.countryRowsOfSubregion(subregionRow);
    const countries = ctx.store.countries;
    return listReply(ctx, {
      set: COUNTRY_FIELDS,
      tier,
      params,
      count: rows.length,
      rowAt: (i) => rows[i]!,
      record: (row) => countries.record(row),
      rowBytes: countries.rowBytes,
      entity: 'countries',
      cacheControl: CACHE_DAY,
    });
  },
};
