// The connection's logic against a scripted socket (no server): which close
// codes reconnect and which stop, backoff, resume, retried action ids,
// presence, duplicate events, and a patch against a room it does not hold.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import { CloseCode, ConnectionClosed, DicecupError, RoomConnection } from '../src/index.js';

class FakeSocket {
  /** @type {FakeSocket[]} */
  static made = [];

  /** @param {string} url */
  constructor(url) {
    this.url = url;
    this.readyState = 0;
    /** @type {any[]} */
    this.sent = [];
    /** @type {((event: any) => void) | null} */
    this.onopen = null;
    /** @type {((event: {data: any}) => void) | null} */
    this.onmessage = null;
    /** @type {((event: {code: number, reason: string}) => void) | null} */
    this.onclose = null;
    /** @type {((event: any) => void) | null} */
    this.onerror = null;
    FakeSocket.made.push(this);
  }

  /** @param {string} data */
  send(data) {
    this.sent.push(JSON.parse(data));
  }

  /**
   * @param {number} [code]
   * @param {string} [reason]
   */
  close(code = 1005, reason = '') {
    this.closedWith = code;
    if (this.readyState === 3) return;
    this.readyState = 3;
    setTimeout(() => this.onclose?.({ code, reason }), 0);
  }

  // the server's side
  open() {
    this.readyState = 1;
    this.onopen?.({});
  }

  /** @param {any} message */
  receive(message) {
    this.onmessage?.({ data: JSON.stringify(message) });
  }

  /** @param {number} code */
  drop(code) {
    this.readyState = 3;
    this.onclose?.({ code, reason: `closed ${code}` });
  }
}

/** @param {number} version */
function room(version, extra = {}) {
  return {
    code: 'ABCDEF',
    ruleset: 'yacht',
    options: { hints: true },
    max_players: 2,
    status: 'playing',
    host_id: 'p1',
    players: [
      { id: 'p1', name: 'Ana', seat: 0, bot: null, connected: true, host: true },
      { id: 'p2', name: 'Ben', seat: 1, bot: null, connected: false, host: false },
    ],
    version,
    game: null,
    games: [],
    best: {},
    ...extra,
  };
}

/**
 * @param {number} version
 * @param {string} [type]
 */
function event(version, type = 'kept') {
  return { version, type, player_id: 'p1', data: { kept: [true, false, false, false, false] }, at: '2026-01-01T00:00:00Z' };
}

/** @param {number} [ms] */
const tick = (ms = 5) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * @param {() => boolean} check
 * @param {number} [timeout]
 */
async function until(check, timeout = 5000) {
  const deadline = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await tick(2);
  }
}

/**
 * A connection on FakeSockets; `served` is what GET /api/rooms/ABCDEF answers.
 * @param {Partial<import('../src/connection.js').ConnectionOptions>} [options]
 */
function setup(options = {}) {
  FakeSocket.made = [];
  const state = { served: room(1), gets: 0 };
  /** @type {typeof fetch} */
  const fakeFetch = async (url) => {
    state.gets++;
    assert.equal(String(url), 'http://dicecup.test/sub/api/rooms/ABCDEF');
    return new Response(JSON.stringify(state.served), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  const conn = new RoomConnection({
    code: 'ABCDEF',
    baseUrl: 'http://dicecup.test/sub',
    token: 'secret',
    WebSocket: /** @type {any} */ (FakeSocket),
    backoff: { initial: 10, max: 40, jitter: 0.5 },
    heartbeat: 0,
    ...options,
    api: options.api,
  });
  // the REST client the connection made, with the fake fetch
  /** @type {any} */ (conn.api)._fetch = fakeFetch;
  return { conn, state, sockets: FakeSocket.made };
}

test('hello, welcome, and a socket URL under the base path', async () => {
  const { conn, sockets } = setup();
  const welcomed = conn.connect();
  assert.equal(conn.state, 'connecting');
  assert.equal(sockets[0].url, 'ws://dicecup.test/sub/api/rooms/ABCDEF/ws');
  sockets[0].open();
  assert.deepEqual(sockets[0].sent, [{ type: 'hello', token: 'secret', protocol: 2 }]);
  sockets[0].receive({ type: 'welcome', protocol: 2, you: room(4).players[0], room: room(4) });
  const welcome = await welcomed;
  assert.equal(welcome.room.version, 4);
  assert.equal(conn.state, 'open');
  assert.equal(conn.version, 4);
  assert.equal(conn.you?.id, 'p1');
  conn.close();
  assert.equal(conn.state, 'closed');
  assert.equal(conn.closed?.reason, 'closed');
});

for (const code of [CloseCode.GOING_AWAY, CloseCode.TRY_AGAIN_LATER, CloseCode.KEEPALIVE_TIMEOUT, 1006, 1005, 1001]) {
  test(`close ${code} reconnects with backoff and resumes with after`, async () => {
    const { conn, sockets } = setup();
    /** @type {any[]} */
    const drops = [];
    conn.on('disconnect', (d) => drops.push(d));
    const welcomed = conn.connect();
    sockets[0].open();
    sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
    await welcomed;
    sockets[0].receive({ type: 'event', event: event(5), patch: [{ op: 'replace', path: '/version', value: 5 }] });
    await tick();
    assert.equal(conn.version, 5);
    sockets[0].drop(code);
    await tick(1);
    assert.equal(conn.state, 'reconnecting');
    assert.equal(drops.length, 1);
    assert.equal(drops[0].willRetry, true);
    assert.ok(drops[0].delay >= 5 && drops[0].delay <= 10, `first delay ${drops[0].delay}`);
    // the next socket fails too: the wait grows
    await tick(15);
    assert.equal(sockets.length, 2);
    sockets[1].drop(1006);
    await tick(1);
    assert.ok(drops[1].delay >= 10 && drops[1].delay <= 20, `second delay ${drops[1].delay}`);
    await tick(25);
    assert.equal(sockets.length, 3);
    sockets[2].open();
    assert.deepEqual(sockets[2].sent[0], { type: 'hello', token: 'secret', protocol: 2, after: 5 });
    const again = conn.opened();
    sockets[2].receive({ type: 'welcome', protocol: 2, you: null, room: room(5) });
    await again;
    assert.equal(conn.state, 'open');
    assert.equal(conn.reconnects, 2);
    // a drop after a welcome starts the backoff over
    sockets[2].drop(code);
    await tick(1);
    assert.ok(drops[2].delay <= 10, `delay after a welcome ${drops[2].delay}`);
    conn.close();
  });
}

const fatal = /** @type {const} */ ([
  [CloseCode.UNKNOWN_ROOM, 'unknown_room'],
  [CloseCode.BAD_TOKEN, 'bad_token'],
  [CloseCode.SEAT_GONE, 'seat_gone'],
  [CloseCode.SPECTATORS_FULL, 'spectators_full'],
  [CloseCode.RATE_LIMITED, 'rate_limited'],
  [CloseCode.BAD_HELLO, 'bad_hello'],
  [CloseCode.POLICY, 'flooded'],
  [CloseCode.TOO_BIG, 'too_big'],
]);

for (const [code, reason] of fatal) {
  test(`close ${code} stops with reason ${reason}`, async () => {
    const { conn, sockets } = setup();
    const welcomed = conn.connect();
    sockets[0].open();
    const acted = conn.act({ type: 'roll' }).catch((error) => error);
    sockets[0].receive({ type: 'error', id: null, code: 'unauthorized', detail: 'who are you' });
    sockets[0].drop(code);
    await assert.rejects(welcomed, (error) => {
      assert.ok(error instanceof ConnectionClosed);
      assert.equal(error.reason, reason);
      assert.equal(error.code, code);
      assert.equal(error.error?.code, 'unauthorized');
      return true;
    });
    assert.ok((await acted) instanceof ConnectionClosed);
    assert.equal(conn.state, 'closed');
    await tick(30);
    assert.equal(sockets.length, 1, 'no reconnect');
    await assert.rejects(conn.act({ type: 'roll' }), ConnectionClosed);
  });
}

test('maxRetries gives up', async () => {
  const { conn, sockets } = setup({ maxRetries: 2 });
  const welcomed = conn.connect().catch((error) => error);
  sockets[0].drop(1006);
  await tick(1);
  await tick(15);
  sockets[1].drop(1006);
  await tick(1);
  await tick(25);
  sockets[2].drop(1006);
  const error = await welcomed;
  assert.ok(error instanceof ConnectionClosed && error.reason === 'gave_up');
});

test('an action in flight is sent again with the same id after a reconnect', async () => {
  const { conn, sockets } = setup({ newId: () => 'id-1' });
  const welcomed = conn.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
  await welcomed;
  const acted = conn.act({ type: 'roll' });
  const queued = conn.act({ type: 'score', box: 'sixes' }, { id: 'id-2' });
  assert.deepEqual(sockets[0].sent.slice(1), [
    { type: 'action', action: { type: 'roll', id: 'id-1' } },
    { type: 'action', action: { type: 'score', box: 'sixes', id: 'id-2' } },
  ]);
  assert.equal(conn.act({ type: 'roll' }, { id: 'id-1' }), acted, 'the same id is the same action');
  sockets[0].receive({ type: 'error', id: 'id-2', code: 'must_roll_first', detail: 'roll first' });
  await assert.rejects(queued, (error) => error instanceof DicecupError && error.code === 'must_roll_first' && error.actionId === 'id-2');
  sockets[0].drop(1012);
  await tick(1);
  // acting while disconnected waits for the welcome
  const later = conn.act({ type: 'keep', dice: [0] }, { id: 'id-3' });
  await tick(15);
  sockets[1].open();
  assert.equal(sockets[1].sent.length, 1, 'only the hello before the welcome');
  sockets[1].receive({ type: 'welcome', protocol: 2, you: null, room: room(5) });
  await tick();
  assert.deepEqual(sockets[1].sent.slice(1), [
    { type: 'action', action: { type: 'roll', id: 'id-1' } },
    { type: 'action', action: { type: 'keep', dice: [0], id: 'id-3' } },
  ]);
  // replayed event 5 (the roll, applied before the drop), then the answer from memory
  sockets[1].receive({ type: 'event', event: event(5, 'rolled'), patch: [] });
  sockets[1].receive({ type: 'ack', id: 'id-1', version: 5 });
  assert.deepEqual(await acted, { id: 'id-1', version: 5 });
  // the keep: its ack comes before its event; act resolves once the event is in
  sockets[1].receive({ type: 'ack', id: 'id-3', version: 6 });
  let done = false;
  later.then(() => (done = true));
  await tick();
  assert.equal(done, false);
  sockets[1].receive({ type: 'event', event: event(6), patch: [{ op: 'replace', path: '/version', value: 6 }] });
  assert.deepEqual(await later, { id: 'id-3', version: 6 });
  assert.equal(conn.pendingActions.length, 0);
  conn.close();
});

test('events are delivered once, in order; a gap is filled over REST', async () => {
  const { conn, sockets, state } = setup();
  /** @type {number[]} */
  const seen = [];
  conn.store.subscribe((_room, update) => {
    if ('version' in update) seen.push(update.version);
  });
  const welcomed = conn.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
  await welcomed;
  sockets[0].receive({ type: 'event', event: event(5), patch: [{ op: 'replace', path: '/version', value: 5 }] });
  sockets[0].receive({ type: 'event', event: event(5), patch: [] }); // a duplicate
  sockets[0].drop(1013);
  await tick(1);
  await tick(15);
  sockets[1].open();
  // the resume overlaps what we have: 5 again, then 6 and 7
  sockets[1].receive({ type: 'welcome', protocol: 2, you: null, room: room(7) });
  for (const v of [6, 7]) sockets[1].receive({ type: 'event', event: event(v), patch: [] });
  await tick();
  assert.deepEqual(seen, [5, 6, 7]);
  // a gap (8 never came): read over REST
  /** @type {typeof fetch} */
  /** @type {any} */ (conn.api)._fetch = async (/** @type {any} */ url) => {
    state.gets++;
    assert.match(String(url), /\/api\/rooms\/ABCDEF\/events\?after=7&limit=1000$/);
    return new Response(JSON.stringify({ events: [event(8), event(9)], version: 9, more: false }), { status: 200 });
  };
  sockets[1].receive({ type: 'event', event: event(9), patch: [{ op: 'replace', path: '/version', value: 9 }] });
  await tick();
  assert.deepEqual(seen, [5, 6, 7, 8, 9]);
  assert.equal(conn.store.version, 9);
  conn.close();
});

test('presence sets the connected flags; patches and resyncs keep them', async () => {
  const { conn, sockets } = setup();
  /** @type {any[]} */
  const updates = [];
  conn.store.subscribe((_room, update) => updates.push(update));
  const welcomed = conn.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
  await welcomed;
  const before = conn.store.room;
  sockets[0].receive({ type: 'presence', player_id: 'p2', connected: true });
  await tick();
  assert.equal(conn.store.room?.players[1].connected, true);
  assert.equal(conn.store.room?.players[0], before?.players[0], 'the other player is the same object');
  assert.equal(before?.players[1].connected, false, 'the old room is not mutated');
  assert.deepEqual(updates.at(-1), { type: 'presence', player_id: 'p2', connected: true });
  // a patch made from a view with an older flag does not undo the presence
  sockets[0].receive({
    type: 'event',
    event: event(5),
    patch: [
      { op: 'replace', path: '/version', value: 5 },
      { op: 'replace', path: '/players/1/connected', value: false },
    ],
  });
  await tick();
  assert.equal(conn.store.room?.players[1].connected, true);
  conn.close();
});

test('a patch against a room the client does not hold: the room is read over REST', async () => {
  const { conn, sockets, state } = setup();
  /** @type {any[]} */
  const resyncs = [];
  conn.on('resync', (r) => resyncs.push(r));
  const welcomed = conn.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
  await welcomed;
  state.served = room(6, { status: 'finished' });
  // /game is null here: this patch is not for the room we hold
  sockets[0].receive({ type: 'event', event: event(5), patch: [{ op: 'replace', path: '/game/turn', value: {} }] });
  await until(() => conn.version === 5);
  assert.equal(state.gets, 1);
  assert.equal(resyncs.length, 1);
  assert.equal(conn.store.room?.version, 6);
  assert.equal(conn.store.room?.status, 'finished');
  assert.equal(conn.version, 5);
  // event 6's patch is already in the room read: it is not applied again
  sockets[0].receive({ type: 'event', event: event(6), patch: [{ op: 'remove', path: '/status' }] });
  await tick();
  assert.equal(conn.store.room?.status, 'finished');
  assert.equal(conn.version, 6);
  // an empty patch on a live event (the server read it back from its log): the room is behind, read it
  state.served = room(7, { status: 'lobby' });
  sockets[0].receive({ type: 'event', event: event(7), patch: [] });
  await until(() => conn.version === 7);
  assert.equal(state.gets, 2);
  assert.equal(conn.store.room?.status, 'lobby');
  // a whole-room replace always applies
  sockets[0].receive({ type: 'event', event: event(8), patch: [{ op: 'replace', path: '', value: room(8, { status: 'closed' }) }] });
  await tick();
  assert.equal(conn.store.room?.status, 'closed');
  conn.close();
});

test('protocol 2 events that leave out their data get it from the patched room, or over REST', async () => {
  const { conn, sockets, state } = setup();
  /** @type {any[]} */
  const events = [];
  conn.on('event', (e) => events.push(e));
  const welcomed = conn.connect();
  sockets[0].open();
  const turn = { player_id: 'p2', dice: null, kept: [false, false, false, false, false], rolls_left: 3, scorable: {} };
  const game = { number: 1, status: 'playing', round: 4, order: ['p1', 'p2'], rolloff: [], turn, scorecards: {}, winners: [], fairness: { commitment: 'c', seed: null }, deadline: '2026-01-01T00:01:00Z' };
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4, { game }) });
  await welcomed;
  const bare = (/** @type {number} */ version, /** @type {string} */ type) => ({ version, type, player_id: 'p2', at: '2026-01-01T00:00:00Z' });
  sockets[0].receive({ type: 'event', event: bare(5, 'turn_started'), patch: [{ op: 'replace', path: '/version', value: 5 }] });
  sockets[0].receive({
    type: 'event',
    event: bare(6, 'rolled'),
    patch: [
      { op: 'replace', path: '/version', value: 6 },
      { op: 'replace', path: '/game/turn/dice', value: [1, 2, 3, 4, 6] },
      { op: 'replace', path: '/game/turn/rolls_left', value: 2 },
    ],
  });
  sockets[0].receive({
    type: 'event',
    event: bare(7, 'kept'),
    patch: [
      { op: 'replace', path: '/version', value: 7 },
      { op: 'replace', path: '/game/turn/kept', value: [true, false, false, false, true] },
    ],
  });
  await until(() => events.length === 3);
  assert.deepEqual(events[0].data, { player_id: 'p2', round: 4, deadline: '2026-01-01T00:01:00Z' });
  assert.deepEqual(events[1].data, { dice: [1, 2, 3, 4, 6], kept: [false, false, false, false, false], rolls_left: 2 });
  assert.deepEqual(events[2].data, { kept: [true, false, false, false, true] });
  assert.equal(state.gets, 0);
  // a patch that does not apply: the room read over REST is at a later version, so the event is read too
  const later = room(9, { game: { ...game, turn: { ...turn, dice: [6, 6, 6, 6, 6], rolls_left: 0 } } });
  const rolled8 = { ...bare(8, 'rolled'), data: { dice: [5, 5, 5, 5, 5], kept: [false, false, false, false, false], rolls_left: 1 } };
  /** @type {string[]} */
  const urls = [];
  /** @type {any} */ (conn.api)._fetch = async (/** @type {any} */ url) => {
    urls.push(String(url));
    const body = String(url).includes('/events') ? { events: [rolled8], version: 9, more: true } : later;
    return new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } });
  };
  sockets[0].receive({ type: 'event', event: bare(8, 'rolled'), patch: [{ op: 'replace', path: '/nothing/here', value: 1 }] });
  await until(() => events.length === 4);
  assert.deepEqual(events[3], rolled8);
  assert.deepEqual(urls.map((u) => u.replace(/^.*\/api/, '')), ['/rooms/ABCDEF', '/rooms/ABCDEF/events?after=7&limit=1']);
  conn.close();
});

test('protocol 1: rooms from the messages, a null room read over REST when the queue is empty', async () => {
  const { conn, sockets, state } = setup({ protocol: 1, after: 2 });
  const welcomed = conn.connect();
  sockets[0].open();
  assert.deepEqual(sockets[0].sent[0], { type: 'hello', token: 'secret', protocol: 1, after: 2 });
  sockets[0].receive({ type: 'welcome', protocol: 1, you: null, room: room(4) });
  sockets[0].receive({ type: 'event', event: event(3), room: null });
  sockets[0].receive({ type: 'event', event: event(4), room: room(4, { status: 'lobby' }) });
  await welcomed;
  await tick();
  assert.equal(state.gets, 0);
  assert.equal(conn.store.room?.status, 'lobby');
  state.served = room(5, { status: 'finished' });
  sockets[0].receive({ type: 'event', event: event(5), room: null });
  await until(() => conn.store.version === 5);
  assert.equal(state.gets, 1);
  assert.equal(conn.store.room?.status, 'finished');
  conn.close();
});

test('a silent socket is replaced (heartbeat)', async () => {
  const { conn, sockets } = setup({ heartbeat: 200 });
  const welcomed = conn.connect();
  sockets[0].open();
  sockets[0].receive({ type: 'welcome', protocol: 2, you: null, room: room(4) });
  await welcomed;
  await until(() => sockets[0].sent.some((m) => m.type === 'ping'));
  await until(() => sockets.length >= 2);
  assert.equal(sockets[0].closedWith, 4000);
  assert.equal(conn.state, 'reconnecting');
  conn.close();
});
