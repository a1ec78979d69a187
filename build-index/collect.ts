// Receives the parsed rows of each source file and keeps their normalised records, remembering
// which file each record came from (for validation messages).
import type { EntityName, NormalisedDataset } from '../runtime/format/model.js';
import type { Diagnostics } from './diagnostics.js';
import { RowNormaliser, type EntityNoun } from './normalise.js';

export type EntityRecords = Omit<NormalisedDataset, 'sourceRelease'>;
export type RecordOf<E extends EntityName> = EntityRecords[E][number];

const NOUNS: Record<EntityName, EntityNoun> = {
  regions: 'region', subregions: 'subregion', countries: 'country', states: 'state', cities: 'city', postcodes: 'postcode',
};

export class DatasetCollector {
  readonly records: EntityRecords = { regions: [], subregions: [], countries: [], states: [], cities: [], postcodes: [] };
  /** Source file of each record, parallel to `records[entity]`. */
  readonly files: Record<EntityName, string[]> = { regions: [], subregions: [], countries: [], states: [], cities: [], postcodes: [] };

  constructor(private readonly diagnostics: Diagnostics) {}

  add(entity: EntityName, file: string, rows: unknown[]): void {
    const normaliser = new RowNormaliser(this.diagnostics, file, NOUNS[entity]);
    const out = this.records[entity] as unknown[];
    const files = this.files[entity];
    const normalise = normaliser[NOUNS[entity]].bind(normaliser) as (raw: unknown) => unknown;
    for (const raw of rows) {
      const record = normalise(raw);
      if (record !== null) {
        out.push(record);
        files.push(file);
      }
    }
    normaliser.finish();
  }
}
