// Helpers for the tests against a live server (DICECUP_URL, e.g. http://127.0.0.1:8000/).

import WebSocket from 'ws';

import { DicecupApi, RoomConnection } from '../src/index.js';

/** The server under test, or undefined (the live tests then skip). */
export const BASE = process.env.DICECUP_URL;

/** `skip` for a live test without a server. */
export const live = BASE ? {} : { skip: 'DICECUP_URL is not set (the URL of a running Dicecup server)' };

/** Every frame the test sockets sent, per socket. @type {Array<{url: string, sent: any[]}>} */
export const sockets = [];

/**
 * The `ws` package's WebSocket, recording what it sends.
 */
export class RecordingSocket extends WebSocket {
  /** @param {string} url */
  constructor(url) {
    super(url);
    /** @type {any[]} */
    this.sent = [];
    sockets.push({ url, sent: this.sent });
  }

  /**
   * @override
   * @param {any} data
   * @param {any} [options]
   * @param {any} [callback]
   */
  send(data, options, callback) {
    this.sent.push(JSON.parse(String(data)));
    super.send(data, options, callback);
  }
}

export function api() {
  return new DicecupApi({ baseUrl: BASE });
}

/**
 * A connection with short backoff (the tests drop sockets on purpose).
 * @param {string} code
 * @param {Partial<import('../src/connection.js').ConnectionOptions>} [options]
 */
export function connection(code, options = {}) {
  return new RoomConnection({
    code,
    baseUrl: BASE,
    WebSocket: /** @type {any} */ (RecordingSocket),
    backoff: { initial: 20, max: 200 },
    ...options,
  });
}

/**
 * A deterministic random number generator (mulberry32).
 * @param {number} seed
 * @returns {() => number}
 */
export function random(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A legal action for the player whose turn it is: roll, sometimes keep the
 * most common face and roll again, else score the box worth most now.
 * @param {import('../src/types.js').Room} room
 * @param {() => number} rng
 * @returns {import('../src/types.js').Action}
 */
export function choose(room, rng) {
  const turn = room.game?.turn;
  if (!turn) throw new Error('no turn');
  if (turn.dice === null) return { type: 'roll' };
  if (turn.rolls_left > 0 && rng() < 0.6) {
    const dice = turn.dice;
    const counts = new Map();
    for (const face of dice) counts.set(face, (counts.get(face) ?? 0) + 1);
    const best = [...counts.entries()].sort((a, b) => b[1] - a[1] || b[0] - a[0])[0][0];
    const keep = dice.flatMap((face, i) => (face === best ? [i] : []));
    return rng() < 0.3 ? { type: 'keep', dice: keep } : { type: 'roll', keep };
  }
  const boxes = Object.entries(turn.scorable).sort((a, b) => b[1] - a[1]);
  return { type: 'score', box: boxes[0][0] };
}

/**
 * The room without the `connected` flags (they follow presence messages).
 * @param {import('../src/types.js').Room | null} room
 */
export function withoutPresence(room) {
  const copy = JSON.parse(JSON.stringify(room));
  for (const player of copy.players) delete player.connected;
  return copy;
}

/**
 * Resolves when `check()` holds.
 * @param {() => boolean} check
 * @param {number} [timeout]
 */
export async function eventually(check, timeout = 10000) {
  const deadline = Date.now() + timeout;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
