// URLs under a base path, and the REST client's requests and errors (no server).

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { apiUrl, DicecupApi, DicecupError, resolveBase, socketUrl } from '../src/index.js';

test('URLs under the base, with or without its final slash; ws:// or wss:// from it', () => {
  assert.equal(socketUrl('http://127.0.0.1:8000', 'ABCDEF'), 'ws://127.0.0.1:8000/api/rooms/ABCDEF/ws');
  assert.equal(socketUrl('https://example.com/dicecup', 'ABCDEF'), 'wss://example.com/dicecup/api/rooms/ABCDEF/ws');
  assert.equal(socketUrl('https://example.com/dicecup/', 'ABCDEF'), 'wss://example.com/dicecup/api/rooms/ABCDEF/ws');
  assert.equal(apiUrl('https://example.com/a/b/?x=1#y', '/api/rulesets').href, 'https://example.com/a/b/api/rulesets');
  assert.equal(socketUrl('http://h/', 'a/b?c'), 'ws://h/api/rooms/a%2Fb%3Fc/ws', 'the code is one path segment');
  assert.throws(() => resolveBase('./'), TypeError, 'in Node a base must be absolute');
});

test('a relative base resolves against the page (a browser)', () => {
  const global = /** @type {any} */ (globalThis);
  global.location = { href: 'https://play.example.com/prefix/' };
  try {
    assert.equal(resolveBase().href, 'https://play.example.com/prefix/');
    assert.equal(socketUrl('./', 'ABCDEF'), 'wss://play.example.com/prefix/api/rooms/ABCDEF/ws');
    assert.equal(socketUrl('/other', 'ABCDEF'), 'wss://play.example.com/other/api/rooms/ABCDEF/ws');
    assert.equal(new DicecupApi().url('api/rulesets'), 'https://play.example.com/prefix/api/rulesets');
  } finally {
    delete global.location;
  }
});

test('requests: method, body, token; fetch called as a plain function (as a browser requires)', async () => {
  /** @type {any[]} */
  const calls = [];
  /**
   * @this {unknown}
   * @param {any} url
   * @param {any} init
   */
  function strictFetch(url, init) {
    // a browser's fetch throws "Illegal invocation" when called on another object
    if (this !== undefined && this !== globalThis) throw new TypeError('Illegal invocation');
    calls.push([String(url), init]);
    return Promise.resolve(new Response(JSON.stringify({ player: { id: 'p' }, token: 't' }), { status: 201 }));
  }
  const api = new DicecupApi({ baseUrl: 'http://h/x', fetch: /** @type {any} */ (strictFetch) });
  await api.join('ABCDEF', 'Ben');
  await api.start('ABCDEF', 'secret');
  assert.equal(calls[0][0], 'http://h/x/api/rooms/ABCDEF/players');
  assert.equal(calls[0][1].method, 'POST');
  assert.equal(calls[0][1].body, '{"name":"Ben"}');
  assert.equal(calls[0][1].headers['content-type'], 'application/json');
  assert.equal(calls[0][1].headers.authorization, undefined);
  assert.equal(calls[1][1].headers.authorization, 'Bearer secret');
  assert.ok(calls[1][1].signal instanceof AbortSignal, 'a timeout');
});

test('the calls that take a seat send a profile token when given one', async () => {
  /** @type {any[]} */
  const calls = [];
  const fetchImpl = async (/** @type {any} */ url, /** @type {any} */ init) => {
    calls.push([String(url), init]);
    return new Response('{}', { status: 201 });
  };
  const api = new DicecupApi({ baseUrl: 'http://h/', fetch: /** @type {any} */ (fetchImpl) });
  await api.quickPlay({ name: 'Ana', ruleset: 'yatzy' }, 'profile-secret');
  await api.createRoom({ name: 'Ana' }, 'profile-secret');
  await api.join('ABCDEF', 'Ana', 'profile-secret');
  await api.quickPlay({ name: 'Ana' });
  assert.deepEqual(
    calls.map(([url, init]) => [url, init.headers.authorization]),
    [
      ['http://h/api/quickplay', 'Bearer profile-secret'],
      ['http://h/api/rooms', 'Bearer profile-secret'],
      ['http://h/api/rooms/ABCDEF/players', 'Bearer profile-secret'],
      ['http://h/api/quickplay', undefined],
    ],
  );
  assert.equal(calls[0][1].body, '{"name":"Ana","ruleset":"yatzy"}');
});

test('errors: the code, status, Retry-After and field errors; a body that is not Dicecup\'s', async () => {
  /** @type {Response} */
  let answer = new Response('{"detail":"slow down","code":"rate_limited"}', { status: 429, headers: { 'retry-after': '3' } });
  const api = new DicecupApi({ baseUrl: 'http://h/', fetch: async () => answer });
  await assert.rejects(api.rulesets(), (error) => {
    assert.ok(error instanceof DicecupError);
    assert.equal(error.code, 'rate_limited');
    assert.equal(error.status, 429);
    assert.equal(error.retryAfter, 3);
    assert.equal(error.known, true);
    return true;
  });
  answer = new Response('{"detail":"bad","code":"invalid_request","errors":[{"type":"x","loc":["body"],"msg":"m"}]}', {
    status: 422,
  });
  await assert.rejects(api.rulesets(), (error) => error instanceof DicecupError && Array.isArray(error.errors) && error.errors.length === 1);
  answer = new Response('<html>bad gateway</html>', { status: 502 });
  await assert.rejects(api.rulesets(), (error) => {
    assert.ok(error instanceof DicecupError);
    assert.equal(error.code, 'http_error');
    assert.equal(error.detail, 'HTTP 502');
    return true;
  });
  answer = new Response(null, { status: 204 });
  assert.equal(await api.leave('ABCDEF', 'p', 't'), undefined);
});
