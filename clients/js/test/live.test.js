// Against a live server (DICECUP_URL): a whole game over two SDK
// connections with a dropped socket, retried action ids, fatal close codes,
// the REST helpers, and the codes against the server's schema.

import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  CLOSE_CODE_MEANINGS,
  CloseCode,
  ConnectionClosed,
  DicecupError,
  ERROR_CODES,
  ErrorCode,
  REACTIONS,
  newActionId,
} from '../src/index.js';
import { api, choose, connection, eventually, live, random, sockets, withoutPresence } from './support.js';

/** @typedef {import('../src/index.js').RoomConnection} RoomConnection */
/** @typedef {import('../src/index.js').RoomEvent} RoomEvent */
/** @typedef {import('../src/index.js').Room} Room */

/**
 * Every event a connection delivers, to its store's listeners and to `on('event')`.
 * @param {RoomConnection} conn
 */
function record(conn) {
  /** @type {{store: RoomEvent[], on: RoomEvent[], presence: Array<[string, boolean]>, rooms: Room[]}} */
  const log = { store: [], on: [], presence: [], rooms: [] };
  conn.store.subscribe((room, update) => {
    if ('version' in update) {
      log.store.push(update);
      log.rooms.push(room);
    } else if (update.type === 'presence') log.presence.push([update.player_id, update.connected]);
  });
  conn.on('event', (event) => log.on.push(event));
  return log;
}

/** The underlying `ws` socket, closed without a close handshake (as a lost network). */
/** @param {RoomConnection} conn */
function dropSocket(conn) {
  const socket = /** @type {any} */ (conn.socket);
  assert.ok(socket, 'a socket to drop');
  socket.terminate();
}

test('the error and close codes are the schema\'s', live, async () => {
  const schema = await api().protocol();
  assert.deepEqual([...ERROR_CODES].sort(), [...schema.$defs.ErrorCode.enum].sort());
  // the schema's close codes under its names, and the WebSocket standard 1000 and 1011
  // (keepalive timeout, which its description names)
  const closes = schema.$defs.CloseCode;
  assert.match(closes.description, /1011/);
  assert.deepEqual(Object.values(CloseCode).sort(), [...closes.enum, 1000, 1011].sort());
  closes.enum.forEach((/** @type {number} */ code, /** @type {number} */ i) => {
    assert.equal(CloseCode[/** @type {keyof typeof CloseCode} */ (closes['x-enum-varnames'][i])], code);
    assert.equal(CLOSE_CODE_MEANINGS[/** @type {keyof typeof CLOSE_CODE_MEANINGS} */ (code)], closes['x-meanings'][String(code)]);
  });
  assert.deepEqual([...REACTIONS], schema.$defs.ChatReactionData.properties.reaction.enum);
  assert.ok(Object.isFrozen(ErrorCode) && Object.isFrozen(CloseCode) && Object.isFrozen(ERROR_CODES));
});

test('a whole Yacht game over two connections: every event once, in order; a dropped socket resumes; retried ids apply once', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2 });
  const code = created.room.code;
  const ben = await rest.join(code, 'Ben');
  const ids = { ana: created.player.id, ben: ben.player.id };
  const ana = connection(code, { token: created.token });
  const benConn = connection(code, { token: ben.token });
  // a protocol 1 spectator, and a protocol 2 spectator that comes late and replays from the start
  const watcher = connection(code, { protocol: 1 });
  const logs = { ana: record(ana), ben: record(benConn), watcher: record(watcher) };
  const welcome = await ana.connect();
  assert.equal(welcome.protocol, 2);
  assert.equal(welcome.you?.id, ids.ana);
  await benConn.connect();
  await watcher.connect();
  const start = welcome.room.version;
  await ana.store.when((room) => room.players.every((p) => p.connected));

  await rest.start(code, created.token);
  /** @type {Record<string, RoomConnection>} */
  const seats = { [ids.ana]: ana, [ids.ben]: benConn };
  const rng = random(7);
  let actions = 0;
  let dropped = false;
  let retried = false;
  let room = await ana.store.when((r) => r.game?.turn != null);
  while (room.game?.status === 'playing') {
    const turn = /** @type {NonNullable<NonNullable<Room['game']>['turn']>} */ (room.game.turn);
    const conn = seats[turn.player_id];
    actions++;
    if (actions === 9) {
      // Ben's socket drops mid-game; whoever acts next, the game goes on
      dropSocket(benConn);
      dropped = true;
    }
    const action = choose(room, rng);
    let version;
    if (!retried && actions > 14 && turn.dice !== null && turn.rolls_left > 0) {
      // an action in flight when its socket drops: sent again after the reconnect with the same id
      retried = true;
      const id = newActionId();
      const before = room.version;
      const reconnects = conn.reconnects;
      const acted = conn.act({ type: 'roll' }, { id });
      dropSocket(conn);
      ({ version } = await acted);
      assert.ok(conn.reconnects > reconnects, 'it reconnected');
      assert.equal(version, before + 1, 'one roll: one event');
      // it went out on the dropped socket and again on the next one
      const sends = () => sockets.flatMap((s) => s.sent).filter((m) => m.type === 'action' && m.action.id === id);
      assert.equal(sends().length, 2);
      // and sent once more, by hand, after it was acknowledged: answered from memory
      const again = await conn.act({ type: 'roll' }, { id });
      assert.equal(again.version, version);
      const events = await rest.allEvents(code, before);
      assert.deepEqual(events.map((e) => [e.version, e.type]), [[before + 1, 'rolled']]);
      assert.equal((await rest.getRoom(code)).version, version, 'nothing applied twice');
      assert.equal(sends().length, 3);
    } else {
      ({ version } = await conn.act(action));
    }
    const v = version;
    await Promise.all([ana, benConn].map((c) => c.store.when((r) => r.version >= v)));
    room = /** @type {Room} */ (ana.store.room);
  }
  assert.ok(dropped && retried);
  const final = await rest.getRoom(code);
  assert.equal(final.status, 'finished');
  const late = connection(code, { after: 0 });
  const lateLog = record(late);
  await late.connect();
  await Promise.all([ana, benConn, watcher, late].map((c) => c.store.when((r) => r.version >= final.version)));
  await eventually(() => (late.version ?? 0) >= final.version);

  // the store holds exactly the room the REST API returns
  for (const conn of [ana, benConn, watcher, late]) {
    assert.deepEqual(withoutPresence(conn.store.room), withoutPresence(final));
  }
  // every event once, in order, on every connection; the same events as the log
  const all = await rest.allEvents(code, 0);
  assert.equal(all.at(-1)?.version, final.version);
  for (const log of [logs.ana, logs.ben, logs.watcher]) {
    assert.deepEqual(log.store.map((e) => e.version), range(start + 1, final.version));
    assert.deepEqual(log.on, log.store);
    assert.deepEqual(log.store, all.filter((e) => e.version > start));
  }
  assert.deepEqual(lateLog.store, all);
  // the rooms the listeners got: after each event, the room as of that event (or later: replays)
  for (const [i, event] of logs.ana.store.entries()) assert.ok(logs.ana.rooms[i].version >= event.version);
  // presence: Ana saw Ben go and come back, and holds him connected now
  const benPresence = logs.ana.presence.filter(([id]) => id === ids.ben).map(([, connected]) => connected);
  assert.deepEqual(benPresence.slice(-2), [false, true], `Ben's presence as Ana saw it: ${benPresence}`);
  await eventually(() => ana.store.room?.players.find((p) => p.id === ids.ben)?.connected === true);
  assert.ok(benConn.reconnects >= 1);
  for (const conn of [ana, benConn, watcher, late]) conn.close();
});

test('a patch against a room the client does not hold: the store is read again over REST', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Solo', max_players: 1 });
  const code = created.room.code;
  const conn = connection(code, { token: created.token });
  /** @type {Room[]} */
  const resyncs = [];
  conn.on('resync', (room) => resyncs.push(room));
  await conn.connect();
  await rest.start(code, created.token);
  const started = await conn.store.when((r) => r.game?.turn != null);
  // the client's room goes out of step with the server's (as if it missed a patch)
  conn.store.replace({ ...started, game: null });
  const { version } = await conn.act({ type: 'roll' });
  assert.equal(resyncs.length, 1);
  const room = await rest.getRoom(code);
  assert.equal(room.version, version);
  assert.deepEqual(withoutPresence(conn.store.room), withoutPresence(room));
  // and the next patches apply to it
  const next = await conn.act({ type: 'roll' });
  assert.deepEqual(withoutPresence(conn.store.room), withoutPresence(await rest.getRoom(code)));
  assert.equal(conn.store.version, next.version);
  assert.equal(resyncs.length, 1);
  conn.close();
});

test('refusals are DicecupErrors with the code, over the socket and REST', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2 });
  const code = created.room.code;
  const ben = await rest.join(code, 'Ben');
  const conn = connection(code, { token: ben.token });
  await conn.connect();
  await assert.rejects(conn.act({ type: 'roll' }), (error) => {
    assert.ok(error instanceof DicecupError);
    assert.equal(error.code, ErrorCode.GAME_NOT_STARTED);
    assert.equal(error.status, undefined);
    assert.ok(error.known);
    return true;
  });
  await assert.rejects(rest.start(code, ben.token), (error) => {
    assert.ok(error instanceof DicecupError);
    assert.equal(error.code, ErrorCode.NOT_HOST);
    assert.equal(error.status, 403);
    return true;
  });
  await assert.rejects(rest.getRoom('NOPE00'), (error) => error instanceof DicecupError && error.code === 'room_not_found' && error.status === 404);
  await assert.rejects(rest.createRoom({ name: '' }), (error) => {
    assert.ok(error instanceof DicecupError);
    assert.equal(error.code, ErrorCode.NAME_EMPTY);
    assert.ok(Array.isArray(error.errors));
    return true;
  });
  const watcher = connection(code);
  await watcher.connect();
  assert.equal(watcher.you, null);
  await assert.rejects(watcher.act({ type: 'roll' }), (error) => error instanceof DicecupError && error.code === 'forbidden');
  watcher.close();
  conn.close();
});

test('fatal close codes stop the connection with a typed reason', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 3 });
  const code = created.room.code;

  const unknown = connection('ZZZZZZ');
  await assert.rejects(unknown.connect(), (error) => {
    assert.ok(error instanceof ConnectionClosed);
    assert.equal(error.reason, 'unknown_room');
    assert.equal(error.code, CloseCode.UNKNOWN_ROOM);
    return true;
  });
  assert.equal(unknown.state, 'closed');
  assert.equal(unknown.reconnects, 0);

  const forged = connection(code, { token: 'not-a-token' });
  await assert.rejects(forged.connect(), (error) => {
    assert.ok(error instanceof ConnectionClosed);
    assert.equal(error.reason, 'bad_token');
    assert.equal(error.code, CloseCode.BAD_TOKEN);
    assert.equal(error.error?.code, ErrorCode.UNAUTHORIZED);
    return true;
  });

  // a seat that leaves: its socket closes with 4403 right after the player_left event
  const ben = await rest.join(code, 'Ben');
  const benConn = connection(code, { token: ben.token });
  /** @type {ConnectionClosed[]} */
  const closes = [];
  benConn.on('close', (closed) => closes.push(closed));
  const benLog = record(benConn);
  await benConn.connect();
  await rest.leave(code, ben.player.id, ben.token);
  await eventually(() => closes.length === 1);
  assert.equal(closes[0].reason, 'seat_gone');
  assert.equal(closes[0].code, CloseCode.SEAT_GONE);
  assert.equal(benLog.store.at(-1)?.type, 'player_left');
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert.equal(benConn.reconnects, 0, 'no reconnect after a fatal code');
});

test('REST helpers: rulesets, bots, games, events, hints', live, async () => {
  const rest = api();
  const rulesets = await rest.rulesets();
  const yacht = rulesets.find((r) => r.name === 'yacht');
  assert.ok(yacht && yacht.boxes.length === 12);
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2, options: { hints: true } });
  const code = created.room.code;
  const bot = await rest.addBot(code, 'greedy', created.token);
  assert.equal(bot.player.bot, 'greedy');
  const conn = connection(code, { token: created.token });
  await conn.connect();
  const started = await rest.start(code, created.token);
  assert.equal(started.game?.number, 1);
  const game = await rest.game(code, 1);
  assert.deepEqual(game.order, started.game?.order);
  // the bot plays its turns by itself; wait for ours and roll
  const room = await conn.store.when((r) => r.game?.turn?.player_id === created.player.id);
  const acted = await rest.act(code, { type: 'roll', id: 'rest-1' }, created.token);
  assert.equal(acted.events[0].type, 'rolled');
  assert.equal(acted.room.version, acted.version);
  const replay = await rest.act(code, { type: 'roll', id: 'rest-1' }, created.token);
  assert.equal(replay.version, acted.version, 'the same id: answered from memory');
  await conn.store.when((r) => r.version >= acted.version);
  try {
    const hint = await rest.hint(code, created.token);
    assert.equal(hint.rolls_left, 2);
    assert.ok(hint.boxes.length > 0);
  } catch (error) {
    // the strategy tables may not be loaded yet
    assert.ok(error instanceof DicecupError && error.code === ErrorCode.STRATEGY_UNAVAILABLE, String(error));
  }
  const page = await rest.events(code, { after: room.version - 1, limit: 1 });
  assert.equal(page.events.length, 1);
  assert.equal(page.more, true);
  await rest.act(code, { type: 'score', box: 'choice' }, created.token);
  // during a game, leaving resigns (the autopilot finishes the card); twice is refused
  await rest.leave(code, created.player.id, created.token);
  await assert.rejects(rest.leave(code, created.player.id, created.token), (error) => error instanceof DicecupError && error.code === 'resigned');
  conn.close();
});

test('against the computer in one call, then play again: the series adds up', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2, bots: ['greedy'], start: true });
  assert.equal(created.room.status, 'playing');
  assert.deepEqual(created.room.players.map((p) => p.bot), [null, 'greedy']);
  const code = created.room.code;
  const me = created.player.id;
  await assert.rejects(rest.rematch(code, 1, created.token), (error) => error instanceof DicecupError && error.code === ErrorCode.GAME_IN_PROGRESS);
  const conn = connection(code, { token: created.token });
  await conn.connect();
  const rng = random(7);
  for (const number of [1, 2]) {
    for (;;) {
      const room = await conn.store.when((r) => r.game?.number === number && (r.game.status === 'finished' || r.game.turn?.player_id === me));
      if (room.game?.status === 'finished') break;
      const { version } = await conn.act(choose(room, rng));
      await conn.store.when((r) => r.version >= version);
    }
    assert.deepEqual(conn.store.room?.rematch?.waiting, [me]);
    if (number === 1) {
      const again = await rest.rematch(code, 1, created.token); // the bot accepted at once: Game #2 starts
      assert.equal(again.game?.number, 2);
    }
  }
  const room = /** @type {Room} */ (conn.store.room);
  for (const line of room.series) {
    assert.equal(line.games, 2);
    assert.equal(line.total, room.games.reduce((sum, g) => sum + g.totals[line.player_id], 0));
  }
  await assert.rejects(rest.rematch(code, 1, created.token), (error) => error instanceof DicecupError && error.code === ErrorCode.REMATCH_STARTED);
  conn.close();
});

test('chat, reactions and mute over REST; chat events come over the socket', live, async () => {
  const rest = api();
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2 });
  const code = created.room.code;
  assert.equal(created.room.options.hints, false, 'hints are off by default with other players');
  const joined = await rest.join(code, 'Ben');
  const conn = connection(code, { token: created.token });
  const log = record(conn);
  await conn.connect();
  const said = await rest.chat(code, { text: ' hi  there ' }, joined.token);
  assert.deepEqual([said.event.type, said.event.data], ['chat', { text: 'hi there' }]);
  const reacted = await rest.chat(code, { reaction: REACTIONS[0] }, created.token);
  assert.deepEqual(reacted.event.data, { reaction: '👍' });
  await rest.mute(code, joined.player.id, true, created.token);
  await assert.rejects(rest.chat(code, { text: 'hey' }, joined.token), (error) => error instanceof DicecupError && error.code === ErrorCode.MUTED && error.status === 403);
  await assert.rejects(rest.chat(code, { text: '' }, created.token), (error) => error instanceof DicecupError && error.code === ErrorCode.CHAT_EMPTY);
  await conn.store.when((r) => r.players.some((p) => p.muted));
  await rest.mute(code, joined.player.id, false, created.token);
  await conn.store.when((r) => r.players.every((p) => !p.muted));
  assert.deepEqual(
    log.store.filter((e) => e.version >= said.event.version).map((e) => e.type),
    ['chat', 'chat', 'player_muted', 'player_unmuted'],
  );
  conn.close();
});

/**
 * @param {number} from
 * @param {number} to
 */
function range(from, to) {
  return Array.from({ length: to - from + 1 }, (_, i) => from + i);
}

test('turn notifications: the VAPID key, a seat subscribing and unsubscribing, a bad subscription refused', live, async () => {
  const { createECDH, randomBytes } = await import('node:crypto');
  const rest = api();
  const { public_key: key } = await rest.pushKey();
  assert.equal(Buffer.from(key, 'base64url').length, 65);
  const created = await rest.createRoom({ ruleset: 'yacht', name: 'Ana', max_players: 2 });
  const code = created.room.code;
  const subscription = {
    endpoint: `https://fcm.googleapis.com/fcm/send/sdk-test-${randomBytes(6).toString('hex')}`,
    expirationTime: null,
    keys: {
      p256dh: createECDH('prime256v1').generateKeys().toString('base64url'),
      auth: randomBytes(16).toString('base64url'),
    },
  };
  assert.deepEqual(await rest.subscribePush(code, created.player.id, subscription, created.token, 'sw'), { subscriptions: 1 });
  await assert.rejects(
    rest.subscribePush(code, created.player.id, { ...subscription, endpoint: 'https://example.com/x' }, created.token),
    (error) => error instanceof DicecupError && error.code === ErrorCode.INVALID_SUBSCRIPTION && error.status === 422,
  );
  assert.deepEqual(await rest.unsubscribePush(code, created.player.id, created.token, subscription.endpoint), { subscriptions: 0 });
});
