// A room's socket (GET /api/rooms/{code}/ws, docs/api.md): hello, resume
// with `after`, reconnect with backoff, protocol 2 patches into a RoomStore,
// and actions with ids that are retried safely after a reconnect.

import { FATAL_CLOSE_CODES, isFatalClose } from './codes.js';
import { PatchError, applyPatch } from './patch.js';
import { DicecupApi, DicecupError, socketUrl } from './rest.js';
import { RoomStore } from './store.js';
import { withData } from './events.js';

/** @typedef {import('./types.js').Room} Room */
/** @typedef {import('./types.js').Player} Player */
/** @typedef {import('./types.js').Action} Action */
/** @typedef {import('./types.js').RoomEvent} RoomEvent */
/** @typedef {import('./types.js').WireEvent} WireEvent */
/** @typedef {import('./types.js').ServerMessage} ServerMessage */
/** @typedef {import('./types.js').ClientMessage} ClientMessage */
/** @typedef {import('./types.js').WelcomeMessage} WelcomeMessage */
/** @typedef {import('./types.js').PresenceMessage} PresenceMessage */
/** @typedef {import('./types.js').PatchOp} PatchOp */
/** @typedef {import('./codes.js').FatalReason} FatalReason */

/**
 * The part of the WebSocket interface the connection uses (browsers' and the
 * `ws` package's both have it).
 * @typedef {object} SocketLike
 * @property {number} readyState
 * @property {(data: string) => void} send
 * @property {(code?: number, reason?: string) => void} close
 * @property {((event: any) => void) | null} onopen
 * @property {((event: {data: any}) => void) | null} onmessage
 * @property {((event: {code: number, reason: string}) => void) | null} onclose
 * @property {((event: any) => void) | null} onerror
 */

/** @typedef {new (url: string) => SocketLike} SocketConstructor */

/**
 * @typedef {object} Backoff
 * @property {number} [initial] ms before the first retry (default 500)
 * @property {number} [max] the longest wait, ms (default 15000)
 * @property {number} [factor] growth per failed attempt (default 2)
 * @property {number} [jitter] 0-1: each wait is cut by up to this share at random (default 0.5)
 */

/**
 * @typedef {object} ConnectionOptions
 * @property {string} code the room's code
 * @property {string | URL} [baseUrl] where the server is (see DicecupApi); ignored when `api` is given
 * @property {DicecupApi} [api] the REST client to read the room with (made from baseUrl otherwise)
 * @property {string | null} [token] a seat token; null or absent: a spectator
 * @property {1 | 2} [protocol] 2 (patches, the default) or 1 (whole rooms)
 * @property {number} [after] the first connection's `after`: the events after it are replayed
 * @property {SocketConstructor} [WebSocket] defaults to globalThis.WebSocket (Node 20: pass the `ws` package's)
 * @property {RoomStore} [store] the store to keep (a new one otherwise)
 * @property {Backoff} [backoff]
 * @property {number} [maxRetries] reconnect attempts in a row before giving up (default: no limit)
 * @property {number} [heartbeat] ms between pings while idle; a socket silent for twice that is
 *   taken for dead and replaced (default 25000; 0: none)
 * @property {() => string} [newId] action ids (default: crypto.randomUUID)
 */

/**
 * @typedef {'idle' | 'connecting' | 'open' | 'reconnecting' | 'closed'} ConnectionState
 */

/**
 * @typedef {object} Disconnect
 * @property {number} code the close code (1006: the network went away)
 * @property {string} reason
 * @property {boolean} willRetry
 * @property {number} [delay] ms until the next attempt
 */

/**
 * What a connection tells its `on` listeners.
 * @typedef {object} ConnectionEvents
 * @property {[ConnectionState]} state
 * @property {[WelcomeMessage]} welcome every (re)connection's welcome
 * @property {[RoomEvent, Room]} event each event once, in version order (across reconnects)
 * @property {[PresenceMessage]} presence
 * @property {[DicecupError]} error an `error` message not tied to a pending action
 * @property {[Disconnect]} disconnect the socket went away
 * @property {[Room]} resync the room was read again over REST
 * @property {[ConnectionClosed]} close the connection stopped for good
 */

/** The connection stopped for good: a fatal close code, close(), or too many retries. */
export class ConnectionClosed extends Error {
  /**
   * @param {FatalReason} reason
   * @param {number | null} code the close code (null for close() and gave_up)
   * @param {string} [closeReason] the close frame's reason text
   * @param {DicecupError} [error] the `error` message the server sent before closing, if any
   */
  constructor(reason, code, closeReason = '', error) {
    super(`connection closed: ${reason}${code === null ? '' : ` (${code})`}${error ? `: ${error.detail}` : ''}`);
    this.name = 'ConnectionClosed';
    this.reason = reason;
    this.code = code;
    this.closeReason = closeReason;
    this.error = error;
  }
}

/**
 * An action id: crypto.randomUUID where there is one (secure contexts, Node),
 * else 122 random bits from getRandomValues, else Math.random.
 * @returns {string}
 */
export function newActionId() {
  const crypto = /** @type {{crypto?: Crypto}} */ (globalThis).crypto;
  if (crypto && typeof crypto.randomUUID === 'function') return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  if (crypto && typeof crypto.getRandomValues === 'function') crypto.getRandomValues(bytes);
  else for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/**
 * @typedef {object} Pending
 * @property {string} id
 * @property {Action & {id: string}} action
 * @property {Promise<{id: string, version: number}>} promise
 * @property {(answer: {id: string, version: number}) => void} resolve
 * @property {(error: Error) => void} reject
 * @property {number} sends how many times it went out (more than once: retried after a reconnect)
 */

const OPEN = 1;
/** Our own close code for a socket we give up on (dead, or to start over). */
const ABANDONED = 4000;

/**
 * One client's live view of a room. `connect()` opens it; it then stays
 * connected (reconnecting with backoff and resuming where it was) until
 * `close()` or a close code that means stop (see FATAL_CLOSE_CODES).
 */
export class RoomConnection {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    if (!options || !options.code) throw new TypeError('RoomConnection needs a room code');
    this.code = options.code;
    this.api = options.api ?? new DicecupApi({ baseUrl: options.baseUrl });
    this.url = socketUrl(this.api.baseUrl, options.code);
    this.token = options.token ?? null;
    this.protocol = options.protocol ?? 2;
    this.store = options.store ?? new RoomStore();
    const Socket = options.WebSocket ?? /** @type {any} */ (globalThis).WebSocket;
    if (typeof Socket !== 'function') {
      throw new TypeError('no WebSocket: pass options.WebSocket (in Node 20, the `ws` package)');
    }
    /** @private @type {SocketConstructor} */
    this._Socket = Socket;
    /** @private */
    this._backoff = { initial: 500, max: 15000, factor: 2, jitter: 0.5, ...options.backoff };
    /** @private */
    this._maxRetries = options.maxRetries ?? Infinity;
    /** @private */
    this._heartbeat = options.heartbeat ?? 25000;
    /** @private */
    this._newId = options.newId ?? newActionId;
    /** @type {ConnectionState} */
    this.state = 'idle';
    /** the seat this connection stands for (null: a spectator), from the last welcome */
    /** @type {Player | null} */
    this.you = null;
    /** @type {ConnectionClosed | null} why it stopped, once it has */
    this.closed = null;
    /**
     * The version of the last event delivered (the next hello's `after`);
     * null before the first welcome unless options.after was given.
     * @type {number | null}
     */
    this.version = options.after ?? null;
    /** how many times the socket has been replaced */
    this.reconnects = 0;
    /** @private @type {SocketLike | null} */
    this._ws = null;
    /** @private */
    this._generation = 0;
    /** @private */
    this._attempt = 0;
    /** @private @type {ReturnType<typeof setTimeout> | null} */
    this._retryTimer = null;
    /** @private @type {ReturnType<typeof setInterval> | null} */
    this._heartbeatTimer = null;
    /** @private */
    this._lastHeard = 0;
    /** @private @type {Map<string, Pending>} */
    this._pending = new Map();
    /** @private @type {Array<{pending: Pending, version: number}>} acknowledged, waiting for their events */
    this._acked = [];
    /** @private @type {Promise<void>} messages are handled one at a time, in order */
    this._chain = Promise.resolve();
    /** @private */
    this._queued = 0;
    /** @private protocol 1: the room is behind the last event; read it once the queue is empty */
    this._stale = false;
    /** @private @type {DicecupError | undefined} the last error message without an action id */
    this._lastError = undefined;
    /** @private @type {{[K in keyof ConnectionEvents]?: Set<(...args: any[]) => void>}} */
    this._listeners = {};
    /** @private @type {Array<{resolve: (w: WelcomeMessage) => void, reject: (e: Error) => void}>} */
    this._waiting = [];
  }

  /** The room as the client holds it. */
  get room() {
    return this.store.room;
  }

  /** The socket in use (null between sockets): for tests and diagnostics. */
  get socket() {
    return this._ws;
  }

  /** Actions sent and not yet answered (they are sent again after a reconnect). */
  get pendingActions() {
    return [...this._pending.values()].map((p) => p.action);
  }

  /**
   * Listen to the connection (see ConnectionEvents); returns a function that stops.
   * @template {keyof ConnectionEvents} K
   * @param {K} type
   * @param {(...args: ConnectionEvents[K]) => void} listener
   * @returns {() => void}
   */
  on(type, listener) {
    const set = (this._listeners[type] ??= new Set());
    set.add(listener);
    return () => {
      set.delete(listener);
    };
  }

  /**
   * @private
   * @template {keyof ConnectionEvents} K
   * @param {K} type
   * @param {ConnectionEvents[K]} args
   */
  _emit(type, ...args) {
    for (const listener of [...(this._listeners[type] ?? [])]) {
      try {
        listener(...args);
      } catch (error) {
        const reportError = /** @type {{reportError?: (e: unknown) => void}} */ (globalThis).reportError;
        if (typeof reportError === 'function') reportError(error);
        else console.error(error);
      }
    }
  }

  /**
   * Open the connection; resolves with the first welcome.
   * @returns {Promise<WelcomeMessage>}
   */
  connect() {
    if (this.state === 'closed') return Promise.reject(this.closed);
    const welcome = this.opened();
    if (this.state === 'idle') this._open();
    return welcome;
  }

  /**
   * Resolves at the next welcome (at once with a resolved promise if open:
   * use `state`), rejects if the connection stops first.
   * @returns {Promise<WelcomeMessage>}
   */
  opened() {
    if (this.state === 'closed') return Promise.reject(this.closed);
    return new Promise((resolve, reject) => this._waiting.push({ resolve, reject }));
  }

  /**
   * Roll, keep or score. Resolves with the room's version after the action
   * once the server has acknowledged it and its events are in the store;
   * rejects with a DicecupError when the
   * server refuses it, or with ConnectionClosed. Sent now if the socket is
   * open, else at the next welcome; an action in flight when the socket drops
   * is sent again, with the same id, after the reconnect (the server applies
   * an id once and answers a repeat from memory).
   * @param {Action} action
   * @param {{id?: string}} [options] the id (default: action.id, else a new UUID)
   * @returns {Promise<{id: string, version: number}>}
   */
  act(action, options = {}) {
    if (this.state === 'closed') return Promise.reject(this.closed);
    const id = options.id ?? action.id ?? this._newId();
    const known = this._pending.get(id);
    if (known) return known.promise;
    /** @type {Pending} */
    const pending = /** @type {any} */ ({ id, action: { ...action, id }, sends: 0 });
    pending.promise = new Promise((resolve, reject) => {
      pending.resolve = resolve;
      pending.reject = reject;
    });
    this._pending.set(id, pending);
    if (this.state === 'open') this._sendAction(pending);
    return pending.promise;
  }

  /** Send a ping (the server answers pong); false if the socket is not open. */
  ping() {
    return this._send({ type: 'ping' });
  }

  /**
   * Drop the socket and connect again at once (resuming), e.g. on a "retry
   * now" button or when the page comes back online.
   */
  reconnect() {
    if (this.state === 'closed' || this.state === 'idle') return;
    this._attempt = 0;
    this._abandon('reconnect requested', 0);
  }

  /**
   * Stop for good: close the socket and reject the pending actions.
   */
  close() {
    if (this.state === 'closed') return;
    const ws = this._ws;
    this._detach();
    if (ws) {
      try {
        ws.close(1000, 'bye');
      } catch {
        // already closing
      }
    }
    this._stop(new ConnectionClosed('closed', null));
  }

  // -- the socket ---------------------------------------------------------------------------

  /** @private */
  _open() {
    this._retryTimer = null;
    const generation = ++this._generation;
    this._setState(this.reconnects === 0 && this.store.room === null ? 'connecting' : 'reconnecting');
    /** @type {SocketLike} */
    let ws;
    try {
      ws = new this._Socket(this.url);
    } catch (error) {
      this._lost(generation, 1006, String(error));
      return;
    }
    this._ws = ws;
    ws.onopen = () => {
      if (generation !== this._generation) return;
      /** @type {import('./types.js').HelloMessage} */
      const hello = { type: 'hello', token: this.token, protocol: this.protocol };
      if (this.version !== null) hello.after = this.version;
      this._lastHeard = Date.now();
      this._send(hello);
    };
    ws.onmessage = (message) => {
      if (generation !== this._generation) return;
      this._lastHeard = Date.now();
      /** @type {ServerMessage} */
      let parsed;
      try {
        const data = message.data;
        parsed = JSON.parse(typeof data === 'string' ? data : new TextDecoder().decode(data));
      } catch {
        return; // not JSON: not from a Dicecup server; ignore it
      }
      this._enqueue(parsed);
    };
    ws.onerror = () => {
      // a close event follows
    };
    ws.onclose = (event) => {
      if (generation !== this._generation) return;
      // after the messages that came before it (an error message says why)
      const { code, reason } = event;
      this._chain = this._chain.then(() => this._lost(generation, code, reason ?? ''));
    };
  }

  /**
   * The socket went away: stop or retry, as the code says.
   * @private
   * @param {number} generation
   * @param {number} code
   * @param {string} reason
   */
  _lost(generation, code, reason) {
    if (generation !== this._generation || this.state === 'closed') return;
    this._detach();
    if (isFatalClose(code)) {
      const error = this._lastError;
      this._emit('disconnect', { code, reason, willRetry: false });
      this._stop(new ConnectionClosed(FATAL_CLOSE_CODES[code], code, reason, error));
      return;
    }
    if (this._attempt >= this._maxRetries) {
      this._emit('disconnect', { code, reason, willRetry: false });
      this._stop(new ConnectionClosed('gave_up', code, reason, this._lastError));
      return;
    }
    const delay = this._delay(this._attempt++);
    this._emit('disconnect', { code, reason, willRetry: true, delay });
    this._setState('reconnecting');
    this._retryTimer = setTimeout(() => {
      this.reconnects++;
      this._open();
    }, delay);
  }

  /**
   * The wait before retry number `attempt` (0-based): exponential, capped,
   * with jitter so that many clients dropped at once (a server restart, 1012)
   * do not come back at once.
   * @private
   * @param {number} attempt
   * @returns {number}
   */
  _delay(attempt) {
    const { initial, max, factor, jitter } = this._backoff;
    const delay = Math.min(max, initial * factor ** attempt);
    return Math.round(delay * (1 - jitter * Math.random()));
  }

  /**
   * Give up on the current socket (dead, or out of step) and connect again.
   * @private
   * @param {string} reason
   * @param {number} [delay] ms (default: the backoff's)
   */
  _abandon(reason, delay) {
    const ws = this._ws;
    const generation = this._generation;
    if (ws) {
      try {
        ws.close(ABANDONED, reason);
      } catch {
        // already closing
      }
    }
    if (delay === 0) {
      this._detach();
      this._setState('reconnecting');
      this._emit('disconnect', { code: ABANDONED, reason, willRetry: true, delay: 0 });
      this.reconnects++;
      this._open();
    } else {
      this._lost(generation, ABANDONED, reason);
    }
  }

  /**
   * Forget the current socket: its late messages and close are ignored.
   * @private
   */
  _detach() {
    this._generation++;
    const ws = this._ws;
    if (ws) {
      ws.onopen = ws.onmessage = ws.onclose = null;
      ws.onerror = () => {};
    }
    this._ws = null;
    if (this._heartbeatTimer !== null) clearInterval(this._heartbeatTimer);
    this._heartbeatTimer = null;
    if (this._retryTimer !== null) clearTimeout(this._retryTimer);
    this._retryTimer = null;
  }

  /**
   * @private
   * @param {ConnectionClosed} closed
   */
  _stop(closed) {
    this.closed = closed;
    this._setState('closed');
    for (const pending of this._pending.values()) pending.reject(closed);
    this._pending.clear();
    for (const { pending } of this._acked.splice(0)) pending.reject(closed);
    for (const waiter of this._waiting.splice(0)) waiter.reject(closed);
    this._emit('close', closed);
  }

  /**
   * @private
   * @param {ConnectionState} state
   */
  _setState(state) {
    if (this.state === state) return;
    this.state = state;
    this._emit('state', state);
  }

  /**
   * @private
   * @param {ClientMessage} message
   * @returns {boolean}
   */
  _send(message) {
    const ws = this._ws;
    if (!ws || ws.readyState !== OPEN) return false;
    try {
      ws.send(JSON.stringify(message));
      return true;
    } catch {
      return false; // the close event follows
    }
  }

  /**
   * @private
   * @param {Pending} pending
   */
  _sendAction(pending) {
    if (this._send({ type: 'action', action: pending.action })) pending.sends++;
  }

  /** @private */
  _startHeartbeat() {
    if (!this._heartbeat) return;
    const every = this._heartbeat;
    this._heartbeatTimer = setInterval(() => {
      const silent = Date.now() - this._lastHeard;
      if (silent > 2 * every) this._abandon(`nothing heard for ${silent} ms`);
      else if (silent >= every) this.ping();
    }, every / 2);
  }

  // -- messages -----------------------------------------------------------------------------

  /**
   * @private
   * @param {ServerMessage} message
   */
  _enqueue(message) {
    this._queued++;
    this._chain = this._chain
      .then(() => this._handle(message))
      .catch((error) => {
        // a bug or an answer we cannot use: start over from a fresh welcome
        if (this.state !== 'closed') this._abandon(`client error: ${error instanceof Error ? error.message : error}`);
      })
      .finally(() => {
        this._queued--;
      });
  }

  /**
   * @private
   * @param {ServerMessage} message
   * @returns {Promise<void>}
   */
  async _handle(message) {
    if (this.state === 'closed') return;
    switch (message.type) {
      case 'welcome':
        return this._welcome(message);
      case 'event':
        return this._event(message.event, 'patch' in message ? message.patch : undefined, 'room' in message ? message.room : undefined);
      case 'presence':
        this.store.setConnected(message.player_id, message.connected);
        this.store.notify({ type: 'presence', player_id: message.player_id, connected: message.connected });
        this._emit('presence', message);
        return;
      case 'ack': {
        const pending = message.id === null ? undefined : this._pending.get(message.id);
        if (pending) {
          this._pending.delete(pending.id);
          // resolve once the action's events are here too (they may come after the ack)
          if ((this.version ?? 0) >= message.version) pending.resolve({ id: pending.id, version: message.version });
          else this._acked.push({ pending, version: message.version });
        }
        return;
      }
      case 'error': {
        const error = new DicecupError(message.code, message.detail, { actionId: message.id });
        const pending = message.id === null ? undefined : this._pending.get(message.id);
        if (pending) {
          this._pending.delete(pending.id);
          pending.reject(error);
        } else {
          this._lastError = error;
          this._emit('error', error);
        }
        return;
      }
      default:
        return; // pong, or a message type this client does not know
    }
  }

  /**
   * @private
   * @param {WelcomeMessage} welcome
   */
  _welcome(welcome) {
    this._attempt = 0;
    this._lastError = undefined;
    this._stale = false;
    this.you = welcome.you;
    this.store.resetPresence();
    this.store.replace(welcome.room);
    if (this.version === null) this.version = welcome.room.version;
    this._setState('open');
    this._startHeartbeat();
    this.store.notify({ type: 'welcome', you: welcome.you });
    this._emit('welcome', welcome);
    for (const waiter of this._waiting.splice(0)) waiter.resolve(welcome);
    for (const pending of this._pending.values()) this._sendAction(pending);
  }

  /**
   * One event: bring the room up to it (patch, room or REST), then deliver
   * it, and any event missed before it, exactly once, with its data (read
   * from the room when protocol 2 left it out, or over REST if the room
   * held is not the room at the event's version).
   * @private
   * @param {WireEvent} event
   * @param {PatchOp[] | undefined} patch protocol 2
   * @param {Room | null | undefined} room protocol 1
   */
  async _event(event, patch, room) {
    const held = this.store.room;
    if (patch !== undefined) {
      const whole = patch.length > 0 && patch.every((op) => op.path === '');
      if (patch.length > 0 && held !== null && (whole || held.version < event.version)) {
        try {
          this.store.replace(applyPatch(held, patch));
        } catch (error) {
          if (!(error instanceof PatchError)) throw error;
          await this._resync(event.version); // a patch against a room we do not hold
        }
      } else if (patch.length > 0 && held === null) {
        await this._resync(event.version);
      }
      if ((this.store.version ?? 0) < event.version) await this._resync(event.version);
    } else if (room) {
      if (room.version >= (this.store.version ?? 0)) this.store.replace(room);
    } else if ((this.store.version ?? 0) < event.version) {
      this._stale = true;
    }
    const delivered = this.version !== null && event.version <= this.version;
    const full = withData(event, this.store.room) ?? (delivered ? null : await this._readEvent(event.version));
    if (full !== null) await this._deliver(full);
    if (this._stale && this._queued <= 1) {
      // protocol 1: the last event we have came without its room: read it
      await this._resync(this.version ?? event.version);
    }
  }

  /**
   * Deliver `event` and any events missed before it (read over REST), in order, once.
   * @private
   * @param {RoomEvent} event
   */
  async _deliver(event) {
    const last = this.version ?? event.version - 1;
    if (event.version <= last) return; // already delivered (a replay overlapping what we had)
    /** @type {RoomEvent[]} */
    let events = [event];
    if (event.version > last + 1) {
      const missed = await this.api.allEvents(this.code, last, event.version - 1);
      events = [...missed.filter((e) => e.version > last), event];
    }
    const room = this.store.room;
    for (const each of events) {
      if (this.version !== null && each.version <= this.version) continue;
      this.version = each.version;
      this.store.notify(each);
      if (room) this._emit('event', each, room);
    }
    const version = this.version ?? 0;
    this._acked = this._acked.filter(({ pending, version: acked }) => {
      if (acked > version) return true;
      pending.resolve({ id: pending.id, version: acked });
      return false;
    });
  }

  /**
   * One event as the REST API has it (with its data).
   * @private
   * @param {number} version
   * @returns {Promise<RoomEvent>}
   */
  async _readEvent(version) {
    const [event] = (await this.api.events(this.code, { after: version - 1, limit: 1 })).events;
    if (event === undefined || event.version !== version) throw new Error(`room ${this.code} has no event ${version}`);
    return event;
  }

  /**
   * Read the room over REST until it is at least at `version`; if that does
   * not work out, start over with a new socket (its welcome has the room).
   * @private
   * @param {number} version
   */
  async _resync(version) {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        const room = await this.api.getRoom(this.code);
        if (room.version >= version) {
          this._stale = false;
          this.store.replace(room);
          this.store.notify({ type: 'resync' });
          this._emit('resync', room);
          return;
        }
      } catch (error) {
        if (error instanceof DicecupError && error.status === 404) break;
      }
      await new Promise((resolve) => setTimeout(resolve, 100 * (attempt + 1)));
    }
    throw new Error(`could not read room ${this.code} at version ${version}`);
  }
}

