// The REST API (docs/api.md) and the URLs of a server given by its base URL.

import { isErrorCode } from './codes.js';

/** @typedef {import('./types.js').ActionResult} ActionResult */
/** @typedef {import('./types.js').EventsPage} EventsPage */
/** @typedef {import('./types.js').RoomEvent} RoomEvent */
/** @typedef {import('./types.js').ChatResult} ChatResult */
/** @typedef {import('./types.js').BotLevel} BotLevel */
/** @typedef {import('./generated/rest.js').Operations} Operations */
// Each method's body, query and answer are those of its operation in /openapi.json
// (generated/rest.js, `make sdk-types`), so tsc checks the SDK against the server's document.
/**
 * @template {keyof Operations} K
 * @typedef {import('./generated/rest.js').BodyOf<K>} BodyOf
 */
/**
 * @template {keyof Operations} K
 * @typedef {import('./generated/rest.js').QueryOf<K>} QueryOf
 */
/**
 * @template {keyof Operations} K
 * @typedef {import('./generated/rest.js').ResponseOf<K>} ResponseOf
 */

/**
 * A refusal from the server, over REST or the socket: `code` is one of
 * {@link import('./codes.js').ErrorCode} (or `http_error` for an answer
 * without a Dicecup error body).
 */
export class DicecupError extends Error {
  /**
   * @param {string} code
   * @param {string} detail
   * @param {{status?: number, retryAfter?: number, errors?: unknown[], actionId?: string | null}} [more]
   */
  constructor(code, detail, more = {}) {
    super(`${code}: ${detail}`);
    this.name = 'DicecupError';
    /** @type {import('./codes.js').ErrorCodeValue | string} */
    this.code = code;
    this.detail = detail;
    /** the HTTP status; undefined for a socket error */
    this.status = more.status;
    /** seconds, from Retry-After (429) */
    this.retryAfter = more.retryAfter;
    /** a 422's field errors */
    this.errors = more.errors;
    /** the action id a socket error answers */
    this.actionId = more.actionId;
  }

  /** Whether the code is one the client knows (see ErrorCode). */
  get known() {
    return isErrorCode(this.code);
  }
}

/**
 * The server's base URL as an absolute URL ending in '/'. A relative base
 * ('./' (the default), '/dicecup/') resolves against the page's location in a
 * browser; in Node it must be absolute ('http://127.0.0.1:8000/').
 * @param {string | URL} [base]
 * @returns {URL}
 */
export function resolveBase(base = './') {
  const location = /** @type {{location?: {href: string}}} */ (globalThis).location;
  const text = String(base) || './';
  const url = location ? new URL(text, location.href) : new URL(text);
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/**
 * The absolute URL of an API path ('api/rooms', without a leading slash) under `base`.
 * @param {string | URL} base
 * @param {string} path
 * @returns {URL}
 */
export function apiUrl(base, path) {
  return new URL(path.replace(/^\/+/, ''), resolveBase(base));
}

/**
 * The room socket's URL: ws:// for an http base, wss:// for https.
 * @param {string | URL} base
 * @param {string} code
 * @returns {string}
 */
export function socketUrl(base, code) {
  const url = apiUrl(base, `api/rooms/${encodeURIComponent(code)}/ws`);
  if (url.protocol === 'https:') url.protocol = 'wss:';
  else if (url.protocol === 'http:') url.protocol = 'ws:';
  return url.href;
}

/**
 * @typedef {object} ApiOptions
 * @property {string | URL} [baseUrl] where the server is ('./', the default, in a page the server serves)
 * @property {typeof globalThis.fetch} [fetch] defaults to globalThis.fetch
 * @property {number} [timeout] ms before a request is abandoned (default 15000; 0: never)
 */

/**
 * The REST API of one server. Methods that need a seat take its token.
 */
export class DicecupApi {
  /** @param {ApiOptions} [options] */
  constructor(options = {}) {
    this.baseUrl = resolveBase(options.baseUrl ?? './');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    if (typeof fetchImpl !== 'function') throw new TypeError('no fetch: pass options.fetch');
    /** @private called as a plain function: a browser's fetch refuses another `this` */
    this._fetch = /** @type {typeof globalThis.fetch} */ ((input, init) => fetchImpl(input, init));
    /** @private */
    this._timeout = options.timeout ?? 15000;
  }

  /**
   * @param {string} path
   * @returns {string}
   */
  url(path) {
    return apiUrl(this.baseUrl, path).href;
  }

  /**
   * One request; the parsed JSON answer (undefined for 204), or a thrown DicecupError.
   * @param {'GET' | 'POST' | 'PUT' | 'DELETE'} method
   * @param {string} path
   * @param {{body?: unknown, token?: string | null, query?: Record<string, string | number | null | undefined>, signal?: AbortSignal}} [options]
   * @returns {Promise<any>}
   */
  async request(method, path, options = {}) {
    const url = apiUrl(this.baseUrl, path);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== null) url.searchParams.set(key, String(value));
    }
    /** @type {Record<string, string>} */
    const headers = { accept: 'application/json' };
    if (options.token) headers.authorization = `Bearer ${options.token}`;
    let signal = options.signal;
    if (!signal && this._timeout > 0 && typeof AbortSignal.timeout === 'function') signal = AbortSignal.timeout(this._timeout);
    /** @type {RequestInit} */
    const init = { method, headers, signal };
    if (options.body !== undefined) {
      headers['content-type'] = 'application/json';
      init.body = JSON.stringify(options.body);
    }
    const response = await this._fetch(url.href, init);
    if (response.status === 204) return undefined;
    const text = await response.text();
    /** @type {any} */
    let body;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = undefined;
    }
    if (!response.ok) {
      const retry = response.headers.get('retry-after');
      const code = body && typeof body.code === 'string' ? body.code : 'http_error';
      const detail = body && typeof body.detail === 'string' ? body.detail : `HTTP ${response.status}`;
      throw new DicecupError(code, detail, {
        status: response.status,
        retryAfter: retry === null ? undefined : Number(retry),
        errors: body?.errors,
      });
    }
    return body;
  }

  /**
   * @param {string} code
   * @returns {string}
   */
  static room(code) {
    return `api/rooms/${encodeURIComponent(code)}`;
  }

  /**
   * Create a room; the creator is seated as host. `bots` seats a server bot
   * of each level with them, `start` starts Game #1 at once (play against
   * the computer in one call). With `profileToken` the seat is that
   * profile's (its history, stats and ratings count the games).
   * @param {BodyOf<'POST /api/rooms'>} body
   * @param {string | null} [profileToken] a profile's token (POST /api/profiles, /api/sessions)
   * @returns {Promise<ResponseOf<'POST /api/rooms'>>}
   */
  createRoom(body, profileToken) {
    return this.request('POST', 'api/rooms', { body, token: profileToken });
  }

  /**
   * @param {string} code
   * @returns {Promise<ResponseOf<'GET /api/rooms/{code}'>>}
   */
  getRoom(code) {
    return this.request('GET', DicecupApi.room(code));
  }

  /**
   * Public rooms in the lobby with a free seat, newest first; `next` is the cursor of the next page.
   * @param {QueryOf<'GET /api/rooms'>} [query]
   * @returns {Promise<ResponseOf<'GET /api/rooms'>>}
   */
  publicRooms(query = {}) {
    return this.request('GET', 'api/rooms', { query });
  }

  /**
   * Play with anyone: join the oldest public lobby room of the rule set with a free seat, or open one.
   * With `profileToken` the seat is that profile's, as on create and join.
   * @param {BodyOf<'POST /api/quickplay'>} body
   * @param {string | null} [profileToken] a profile's token
   * @returns {Promise<ResponseOf<'POST /api/quickplay'>>}
   */
  quickPlay(body, profileToken) {
    return this.request('POST', 'api/quickplay', { body, token: profileToken });
  }

  /**
   * Take a seat (between games); with `profileToken` the seat is that profile's.
   * @param {string} code
   * @param {string} name
   * @param {string | null} [profileToken] a profile's token
   * @returns {Promise<ResponseOf<'POST /api/rooms/{code}/players'>>}
   */
  join(code, name, profileToken) {
    /** @type {BodyOf<'POST /api/rooms/{code}/players'>} */
    const body = { name };
    return this.request('POST', `${DicecupApi.room(code)}/players`, { body, token: profileToken });
  }

  /**
   * Leave (your own seat) or remove a player (host); between games.
   * @param {string} code
   * @param {string} playerId
   * @param {string} token
   * @returns {Promise<ResponseOf<'DELETE /api/rooms/{code}/players/{player_id}'>>}
   */
  leave(code, playerId, token) {
    return this.request('DELETE', `${DicecupApi.room(code)}/players/${encodeURIComponent(playerId)}`, { token });
  }

  /**
   * The server's VAPID public key (base64url): the `applicationServerKey` for pushManager.subscribe.
   * @returns {Promise<ResponseOf<'GET /api/push/key'>>}
   */
  pushKey() {
    return this.request('GET', 'api/push/key');
  }

  /**
   * Notify the seat by Web Push when its turn starts while it is not connected
   * (own token). `subscription` is the browser's `PushSubscription.toJSON()`;
   * `lang` the language of the notifications. The seat's subscription count.
   * @param {string} code
   * @param {string} playerId
   * @param {PushSubscriptionJSON} subscription
   * @param {string} token the seat's own
   * @param {import('./types.js').Language} [lang] the language of the notifications
   * @returns {Promise<ResponseOf<'PUT /api/rooms/{code}/players/{player_id}/push'>>}
   */
  subscribePush(code, playerId, subscription, token, lang) {
    const body = { ...subscription, ...(lang ? { lang } : {}) };
    return this.request('PUT', `${DicecupApi.room(code)}/players/${encodeURIComponent(playerId)}/push`, { body, token });
  }

  /**
   * Stop notifying the seat on one browser (`endpoint`), or on all of them (own token).
   * @param {string} code
   * @param {string} playerId
   * @param {string} token the seat's own
   * @param {string} [endpoint]
   * @returns {Promise<ResponseOf<'DELETE /api/rooms/{code}/players/{player_id}/push'>>}
   */
  unsubscribePush(code, playerId, token, endpoint) {
    return this.request('DELETE', `${DicecupApi.room(code)}/players/${encodeURIComponent(playerId)}/push`, {
      token,
      query: { endpoint },
    });
  }

  /**
   * Seat a bot (host, between games).
   * @param {string} code
   * @param {BotLevel} level
   * @param {string} token the host's
   * @returns {Promise<ResponseOf<'POST /api/rooms/{code}/bots'>>}
   */
  addBot(code, level, token) {
    /** @type {BodyOf<'POST /api/rooms/{code}/bots'>} */
    const body = { level };
    return this.request('POST', `${DicecupApi.room(code)}/bots`, { body, token });
  }

  /**
   * Start a game (host, between games); the room with the new game.
   * @param {string} code
   * @param {string} token the host's
   * @returns {Promise<ResponseOf<'POST /api/rooms/{code}/games'>>}
   */
  start(code, token) {
    return this.request('POST', `${DicecupApi.room(code)}/games`, { token });
  }

  /**
   * Play again: accept a rematch after game `game` (the room's last,
   * finished; any seat). The next game starts, same seats, once every person
   * seated has accepted (bots at once); the room as it is then.
   * @param {string} code
   * @param {number} game the number of the game just finished
   * @param {string} token the seat's
   * @returns {Promise<ResponseOf<'POST /api/rooms/{code}/rematch'>>}
   */
  rematch(code, game, token) {
    /** @type {BodyOf<'POST /api/rooms/{code}/rematch'>} */
    const body = { game };
    return this.request('POST', `${DicecupApi.room(code)}/rematch`, { body, token });
  }

  /**
   * Roll, keep or score over REST (RoomConnection.act does it over the socket).
   * @param {string} code
   * @param {BodyOf<'POST /api/rooms/{code}/actions'>} action
   * @param {string} token
   * @returns {Promise<ActionResult>}
   */
  act(code, action, token) {
    return this.request('POST', `${DicecupApi.room(code)}/actions`, { body: action, token });
  }

  /**
   * Say something (`{text}`, 1-200 characters) or react (`{reaction}`, one of REACTIONS), as a seat.
   * @param {string} code
   * @param {BodyOf<'POST /api/rooms/{code}/chat'>} body
   * @param {string} token
   * @returns {Promise<ChatResult>}
   */
  chat(code, body, token) {
    return this.request('POST', `${DicecupApi.room(code)}/chat`, { body, token });
  }

  /**
   * Mute (`muted` true) or unmute a seat's chat (host).
   * @param {string} code
   * @param {string} playerId
   * @param {boolean} muted
   * @param {string} token the host's
   * @returns {Promise<ResponseOf<'PUT /api/rooms/{code}/players/{player_id}/mute'>>}
   */
  mute(code, playerId, muted, token) {
    return this.request(muted ? 'PUT' : 'DELETE', `${DicecupApi.room(code)}/players/${encodeURIComponent(playerId)}/mute`, { token });
  }

  /**
   * One page of the room's events after `after`.
   * @param {string} code
   * @param {QueryOf<'GET /api/rooms/{code}/events'>} [page]
   * @returns {Promise<EventsPage>}
   */
  events(code, page = {}) {
    return this.request('GET', `${DicecupApi.room(code)}/events`, { query: { after: page.after, limit: page.limit } });
  }

  /**
   * Every event after `after` (all the pages), optionally up to version `upto`.
   * @param {string} code
   * @param {number} [after]
   * @param {number} [upto]
   * @returns {Promise<RoomEvent[]>}
   */
  async allEvents(code, after = 0, upto = Infinity) {
    /** @type {RoomEvent[]} */
    const out = [];
    for (;;) {
      const page = await this.events(code, { after, limit: 1000 });
      for (const event of page.events) {
        if (event.version > upto) return out;
        out.push(event);
      }
      if (!page.more || page.events.length === 0) return out;
      after = page.events[page.events.length - 1].version;
    }
  }

  /**
   * One game of the room (Game #1, #2, ...).
   * @param {string} code
   * @param {number} number
   * @returns {Promise<ResponseOf<'GET /api/rooms/{code}/games/{number}'>>}
   */
  game(code, number) {
    return this.request('GET', `${DicecupApi.room(code)}/games/${number}`);
  }

  /**
   * The expected final total of every choice, for the seat whose turn it is.
   * @param {string} code
   * @param {string} token
   * @returns {Promise<ResponseOf<'GET /api/rooms/{code}/hint'>>}
   */
  hint(code, token) {
    return this.request('GET', `${DicecupApi.room(code)}/hint`, { token });
  }

  /** @returns {Promise<ResponseOf<'GET /api/rulesets'>>} */
  rulesets() {
    return this.request('GET', 'api/rulesets');
  }

  /**
   * The protocol's JSON Schema (GET /api/protocol.json).
   * @returns {Promise<Record<string, any>>}
   */
  protocol() {
    return this.request('GET', 'api/protocol.json');
  }
}
