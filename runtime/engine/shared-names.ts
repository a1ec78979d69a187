// Names of the structures the main thread derives from a snapshot once for every worker thread
// (shared.ts builds them, SnapshotBytes.derived carries them, Store.derived(name) reads them):
// the modules that would otherwise build them per thread look them up by these names.
export const SHARED = {
  /** TrigramIndex.sharedLongLists() of the trigram section `section`. */
  trigramLongLists: (section: string): string => `long-lists:${section}`,
  /** TrigramIndex.subset() of the entity's `trigram.` section to its changed docs (name-matches.ts, entity: a SearchEntity). */
  trigramChanged: (entity: string): string => `trigram-changed:${entity}`,
  /** TrigramIndex.codesOutside() of the entity's `trigram.` section for its changed docs: an Int32Array's bytes. */
  unchangedCodes: (entity: string): string => `unchanged-codes:${entity}`,
  /** PrefixIndex.entriesByRow() of the entity's names prefix index, an Int32Array's bytes (name-keys.ts; entity: countries, states or cities). */
  nameEntries: (entity: string): string => `name-entries:${entity}`,
  /** PrefixTop.shared() of the entity's name/native prefix index (entity: a SearchEntity). */
  prefixTop: (entity: string): string => `prefix-top:${entity}`,
  /** SearchContext.cityKinds(): one KIND_CODE byte per city row. */
  cityKinds: 'city-kinds',
  /** SearchContext.nodeCityKindMasks(): GeoIndex.nodeMasks of the city kinds, one byte per tree node. */
  nodeKindMasks: 'node-kind-masks',
  /** SearchContext.nodePopulationMaxima(entity): GeoIndex.nodeMaxima of its population, a Float64Array's bytes (entity: a SearchEntity). */
  nodePopulationMaxima: (entity: string): string => `node-population-maxima:${entity}`,
  /** PostcodeFilterIndex.sharedLocalityByteStarts(). */
  localityByteStarts: 'locality-byte-starts',
  /** PostcodeFilterIndex.sharedLocalityBlocks(). */
  localityBlocks: 'locality-blocks',
  /** RowGroups.shared() of the postcode rows by a filter column (column: a POSTCODE_GROUPED_COLUMNS name). */
  postcodeRows: (column: string): string => `postcode-rows:${column}`,
} as const;
