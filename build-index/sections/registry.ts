// Index section builders. Each receives the normalised dataset with every array in final row
// order and returns its sections by name (names ≤ 32 ASCII characters; one file each).
// The core sections (records.*, ids.*, relations) are built by build-index/build.ts.
import type { NormalisedDataset } from '../../runtime/format/model.js';
import { buildPostcodeSections } from './postcodes.js';
import { buildGeoSections } from './geo.js';
import { buildNameOrderSections } from './name-order.js';
import { buildPrefixSections } from './prefix.js';
import { buildTrigramSections } from './trigram.js';

export type SectionBuilder = (ds: NormalisedDataset) => Record<string, Uint8Array>;

export interface RegisteredBuilder {
  /** Shown in build progress. */
  name: string;
  build: SectionBuilder;
}

export const SECTION_BUILDERS: RegisteredBuilder[] = [
  { name: 'postcode keys', build: buildPostcodeSections },
  { name: 'geo', build: buildGeoSections },
  { name: 'prefix', build: buildPrefixSections },
  { name: 'trigram', build: buildTrigramSections },
  { name: 'name order', build: buildNameOrderSections },
];
