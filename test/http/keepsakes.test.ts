// Keepsakes (runtime/http/keepsakes.ts): the last request's objects per route, part and status,
// each replaced by the next of its kind. Whether that keeps V8's code is first-load.test.ts's.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ANSWER, CONTEXT, Keepsakes, REPLY } from '../../runtime/http/keepsakes.js';

describe('Keepsakes', () => {
  it('holds one object per route, part and status, the latest', () => {
    const keepsakes = new Keepsakes(3);
    assert.equal(keepsakes.size, 0);
    keepsakes.keep(0, 200, CONTEXT, { n: 1 });
    keepsakes.keep(0, 200, CONTEXT, { n: 2 });
    keepsakes.keep(0, 200, REPLY, {});
    keepsakes.keep(0, 200, ANSWER, {});
    assert.equal(keepsakes.size, 3);
    keepsakes.keep(2, 200, ANSWER, {});
    assert.equal(keepsakes.size, 4);
  });

  it('keeps each other status apart: their objects are made in places of their own', () => {
    const keepsakes = new Keepsakes(1);
    keepsakes.keep(0, 401, ANSWER, {});
    keepsakes.keep(0, 404, ANSWER, {});
    keepsakes.keep(0, 404, REPLY, {});
    keepsakes.keep(0, 404, ANSWER, {});
    keepsakes.keep(0, 0, ANSWER, {});
    assert.equal(keepsakes.size, 4);
  });

  it('lets go of every request\'s objects at a swap, not of the stand-ins', () => {
    const keepsakes = new Keepsakes(2);
    keepsakes.keep(0, 200, CONTEXT, {});
    keepsakes.keep(1, 404, ANSWER, {});
    keepsakes.keepStandIns({}, {});
    keepsakes.forget();
    assert.equal(keepsakes.size, 2);
  });

  it('holds the warm-up\'s stand-ins until others replace them', () => {
    const keepsakes = new Keepsakes(1);
    keepsakes.keepStandIns({}, {});
    keepsakes.keepStandIns({}, {});
    assert.equal(keepsakes.size, 2);
  });
});
