// `order.<entity>` sections (countries, states, cities): each row's rank in name order
// (runtime/format/name-order.ts), so `sort=name` compares numbers instead of folding and comparing
// every name of a list on each request.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { encodeNameOrder, nameRanksOf } from '../../runtime/format/name-order.js';
import { NAMED_ENTITIES, nameOrderSection } from '../../runtime/format/sections.js';

export function buildNameOrderSections(ds: Pick<NormalisedDataset, 'countries' | 'states' | 'cities'>): Record<string, Uint8Array> {
  const sections: Record<string, Uint8Array> = {};
  for (const entity of NAMED_ENTITIES) sections[nameOrderSection(entity)] = encodeNameOrder(nameRanksOf(ds[entity].map((record) => record.name)));
  return sections;
}
