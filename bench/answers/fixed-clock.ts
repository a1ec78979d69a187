// Preloaded (`node --import`) into the server the answer recorder starts: Date.now() returns
// GEOAPI_ANSWERS_NOW, so postcode cursors (which carry their issue time) come out byte-identical
// from run to run. Worker threads inherit --import, so every thread sees the same clock. The CLI
// has no fixed-clock flag; this keeps the recorder on the plain `geoapi serve` command line.
const fixedNowMs = Date.parse(process.env['GEOAPI_ANSWERS_NOW'] ?? '');
if (Number.isFinite(fixedNowMs)) Date.now = () => fixedNowMs;
export {};
