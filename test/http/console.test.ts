// The console (--console / GEOAPI_CONSOLE=1) in a real browser: headless Chromium from Debian's
// `chromium` package driven by puppeteer-core. It opens /console, runs the countries list (sent
// with the console's playground key, since the visitor gave none) and then, after pasting a key
// of their own with Authorize, a search (sent with that key, never the playground's), and sees
// both JSON answers. A screenshot is written to the path printed in the test output.
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';
import { startTestServer, type TestServer } from '../support/server.js';
import { fixtureSnapshot } from '../support/snapshots.js';

const CHROMIUM = process.env['GEOAPI_TEST_CHROMIUM'] ?? '/usr/bin/chromium';
// Skipped only outside CI: with CI=true a missing browser fails the test instead.
const skip = existsSync(CHROMIUM) || process.env['CI'] === 'true' ? false : `no Chromium at ${CHROMIUM} (apt-get install chromium, or set GEOAPI_TEST_CHROMIUM)`;

let server: TestServer;
let browser: Browser;

before(async () => {
  if (skip) return;
  server = await startTestServer({ snapshotDir: fixtureSnapshot().dir, env: { GEOAPI_CONSOLE: '1' } });
  browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
});
after(async () => {
  await browser?.close();
  await server?.close();
});

interface Sent {
  url: string;
  key: string | undefined;
}

/** Expands an operation, presses Execute, waits for its answer and returns the response body text shown. */
async function execute(page: Page, operationDomId: string, pathPart: string): Promise<string> {
  const block = `#${operationDomId}`;
  await page.waitForSelector(`${block} .opblock-summary`);
  await page.click(`${block} .opblock-summary`);
  await page.waitForSelector(`${block} button.execute`);
  const answered = page.waitForResponse((res) => res.url().includes(pathPart));
  await page.click(`${block} button.execute`);
  await answered;
  const body = `${block} .live-responses-table .response-col_description pre`;
  await page.waitForSelector(body);
  return page.$eval(body, (el) => el.textContent ?? '');
}

describe('the console in Chromium', { skip }, () => {
  it('runs the countries list with the playground key and a search with the key the visitor pasted, and shows their JSON', async () => {
    const page = await browser.newPage();
    await page.setViewport({ width: 1280, height: 1500 });
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(String(error)));
    const sent: Sent[] = [];
    const elsewhere: string[] = [];
    page.on('request', (request) => {
      const url = request.url();
      if (!url.startsWith(server.url) && !url.startsWith('data:')) elsewhere.push(url);
      if (url.includes('/v1/')) sent.push({ url, key: request.headers()['x-geoapi-key'] });
    });

    await page.goto(`${server.url}/console`, { waitUntil: 'networkidle0' });
    await page.waitForSelector('.opblock');
    const playgroundKey = /PLAYGROUND_KEY = "([^"]+)"/.exec(await (await fetch(`${server.url}/console/init.js`)).text())?.[1];
    assert.ok(playgroundKey, 'the console holds a playground key');
    assert.ok(!Object.values(server.keys).includes(playgroundKey), 'the playground key is not one of the key file');

    // 1. The countries list, with no key of the visitor's own: the playground key, basic tier.
    const countriesText = await execute(page, 'operations-Countries-countriesList', '/v1/countries');
    const countries = JSON.parse(countriesText) as { iso2: string; numeric_code?: string }[];
    assert.deepEqual(countries.map((c) => c.iso2).sort(), ['BR', 'BS', 'FJ', 'GB', 'NO', 'US']);
    assert.equal(countries[0]!.numeric_code, undefined, 'basic tier: no full-tier fields');
    assert.equal(sent.at(-1)!.key, playgroundKey);

    // 2. Authorize with the visitor's own (professional) key, then a search: sent with that key.
    await page.click('.auth-wrapper .authorize');
    await page.waitForSelector('.modal-ux input');
    await page.type('.modal-ux input', server.keys.professional);
    await page.click('.modal-ux .auth-btn-wrapper .authorize');
    await page.click('.modal-ux .auth-btn-wrapper .btn-done');
    const searchText = await execute(page, 'operations-Search-fuzzySearch', '/v1/search/fuzzy');
    const results = JSON.parse(searchText) as { name: string; match_score: number }[];
    assert.ok(results.length > 0, searchText);
    assert.ok(results.every((r) => typeof r.match_score === 'number'));
    const search = sent.at(-1)!;
    assert.match(search.url, /\/v1\/search\/fuzzy\?q=San/);
    assert.equal(search.key, server.keys.professional, 'the visitor\'s own key, not the playground key');

    await page.$eval('#operations-Search-fuzzySearch', (el) => el.scrollIntoView());
    const shot = join(mkdtempSync(join(tmpdir(), 'geoapi-console-')), 'console.png');
    await page.screenshot({ path: shot, fullPage: false });
    console.log(`# console screenshot: ${shot}`);

    assert.deepEqual(elsewhere, [], 'nothing is loaded from another origin');
    assert.deepEqual(problems.filter((text) => !text.includes('favicon')), [], 'no errors in the page (CSP included)');
    await page.close();
  });

  it('serves the page, Swagger UI\'s files and the start script without a key, and never lets caches keep the key', async () => {
    const page = await server.get('/console');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'self'/);
    assert.equal(page.headers['cache-control'], 'no-store');
    const script = await server.get('/console/init.js');
    assert.equal(script.headers['cache-control'], 'no-store');
    const bundle = await server.get('/console/swagger-ui-bundle.js', { headers: { 'Accept-Encoding': 'br' } });
    assert.equal(bundle.status, 200);
    assert.equal(bundle.headers['content-encoding'], 'br');
    assert.match(String(bundle.headers['content-type']), /^text\/javascript/);
  });
});
