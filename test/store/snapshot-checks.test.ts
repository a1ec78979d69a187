// Snapshot checks at load and `geoapi verify`: a manifest missing sections the server reads is
// refused at start naming them; reserved header bytes must be zero; every section's SHA-256 is
// checked by verify; odd manifests and files get messages that read well.
import assert from 'node:assert/strict';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { SNAPSHOT_FORMAT_VERSION } from '../../runtime/format/section.js';
import { loadStore, REQUIRED_SECTIONS } from '../../runtime/store/index.js';
import { startTestServer } from '../support/server.js';
import { buildFixtureSnapshot, fixtureSnapshot, runCli } from '../cli/support.js';

type ManifestJson = { formatVersion: unknown; sections: Record<string, { file: string; bytes: number; sha256: string }> };
const manifestOf = (dir: string): ManifestJson => JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
const writeManifest = (dir: string, manifest: ManifestJson): void => writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest));

function overwrite(file: string, position: number, bytes: number[]): void {
  const fd = openSync(file, 'r+');
  try {
    writeSync(fd, Buffer.from(bytes), 0, bytes.length, position);
  } finally {
    closeSync(fd);
  }
}

test('every section the server needs is one the builder writes', () => {
  const built = Object.keys(manifestOf(fixtureSnapshot()).sections);
  assert.deepEqual(REQUIRED_SECTIONS.filter((name) => !built.includes(name)), []);
});

test('a server refuses to start on a manifest that omits geo.cities, naming the missing sections', async () => {
  const dir = buildFixtureSnapshot();
  const manifest = manifestOf(dir);
  delete manifest.sections['geo.cities'];
  delete manifest.sections['trigram.states'];
  writeManifest(dir, manifest);
  await assert.rejects(startTestServer({ snapshotDir: dir }), /missing sections "trigram\.states", "geo\.cities": the server needs them/);
});

test('a non-zero reserved header byte (28–31) is refused, naming the file and the bytes', () => {
  const dir = buildFixtureSnapshot();
  overwrite(join(dir, 'relations.bin'), 29, [0x01]);
  assert.throws(() => loadStore(dir), /relations\.bin: reserved header bytes 28–31: expected zeros, found 0x00000100/);
});

test('a non-zero byte in the section name padding is refused', () => {
  const dir = buildFixtureSnapshot();
  overwrite(join(dir, 'relations.bin'), 63, [0x41]);
  assert.throws(() => loadStore(dir), /relations\.bin: header byte 63 \(section name padding\): expected zero, found 0x41/);
});

test('a string formatVersion in the manifest says it found a string, not "expected 2, found 2"', () => {
  const dir = buildFixtureSnapshot();
  const manifest = manifestOf(dir);
  manifest.formatVersion = String(SNAPSHOT_FORMAT_VERSION);
  writeManifest(dir, manifest);
  const expected = new RegExp(`manifest\\.json: snapshot format version mismatch: expected ${SNAPSHOT_FORMAT_VERSION}, found "${SNAPSHOT_FORMAT_VERSION}" \\(a string, not a number\\)`);
  assert.throws(() => loadStore(dir), expected);
});

test('a directory in place of a section file is named as such', () => {
  const dir = buildFixtureSnapshot();
  rmSync(join(dir, 'geo.states.bin'));
  mkdirSync(join(dir, 'geo.states.bin'));
  assert.throws(() => loadStore(dir), /geo\.states\.bin: section "geo\.states": expected a section file, found a directory/);
  const verify = runCli(['verify', dir]);
  assert.equal(verify.status, 1);
  assert.match(verify.stdout, /geo\.states +MISMATCH .*is a directory/);
});

test('geoapi verify prints OK for every section of an intact snapshot and exits 0', () => {
  const dir = fixtureSnapshot();
  const result = runCli(['verify', dir]);
  assert.equal(result.status, 0, result.stderr);
  const lines = result.stdout.trim().split('\n');
  const sections = Object.keys(manifestOf(dir).sections);
  assert.equal(lines.length, sections.length + 1);
  for (const name of sections) assert.ok(lines.some((line) => new RegExp(`^${name.replace(/\./g, '\\.')} +OK$`).test(line)), `${name} OK in:\n${result.stdout}`);
  assert.match(lines.at(-1)!, new RegExp(`all ${sections.length} sections match manifest\\.json`));
});

test('geoapi verify names a section whose bytes changed (same size, valid CRC irrelevant) and exits 1', () => {
  const dir = buildFixtureSnapshot();
  // Change a payload byte and leave the size alone: only the SHA-256 comparison sees it.
  overwrite(join(dir, 'records.countries.bin'), 100, [0x5a]);
  const result = runCli(['verify', dir]);
  assert.equal(result.status, 1);
  assert.match(result.stdout, /^records\.countries +MISMATCH +SHA-256 mismatch: expected [0-9a-f]{64} \(manifest\), found [0-9a-f]{64}$/m);
  assert.match(result.stdout, /^records\.cities +OK$/m);
  assert.match(result.stdout, /1 of \d+ sections do not match manifest\.json/);
});

test('geoapi verify reports required sections the manifest lacks and exits 1', () => {
  const dir = buildFixtureSnapshot();
  const manifest = manifestOf(dir);
  delete manifest.sections['geo.cities'];
  writeManifest(dir, manifest);
  const result = runCli(['verify', dir]);
  assert.equal(result.status, 1);
  assert.match(result.stdout, /^geo\.cities +MISSING/m);
});

test('geoapi verify on a directory without a snapshot exits 1 with the loader message', () => {
  const result = runCli(['verify', join(fixtureSnapshot(), '..', 'nothing-here')]);
  assert.equal(result.status, 1);
  assert.match(result.stderr, /manifest\.json: no snapshot here/);
});
