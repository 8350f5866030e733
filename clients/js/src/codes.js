// Error codes and close codes, mirroring the schema the server serves at
// GET /api/protocol.json ($defs.ErrorCode and $defs.CloseCode). A test checks
// these lists against a live server's schema.

/**
 * Every `code` an error body (REST) or an `error` message (WebSocket) carries.
 */
export const ErrorCode = Object.freeze({
  // who you are
  UNAUTHORIZED: 'unauthorized',
  FORBIDDEN: 'forbidden',
  NOT_HOST: 'not_host',
  NOT_AWAY: 'not_away',
  HINTS_DISABLED: 'hints_disabled',
  CHAT_DISABLED: 'chat_disabled',
  MUTED: 'muted',
  REMOVED_FROM_ROOM: 'removed_from_room',
  // what you asked for
  ROOM_NOT_FOUND: 'room_not_found',
  GAME_NOT_FOUND: 'game_not_found',
  PLAYER_NOT_FOUND: 'player_not_found',
  PROFILE_NOT_FOUND: 'profile_not_found',
  NOT_FOUND: 'not_found',
  METHOD_NOT_ALLOWED: 'method_not_allowed',
  TOO_LARGE: 'too_large',
  INVALID_REQUEST: 'invalid_request',
  TURN_SECONDS_OUT_OF_RANGE: 'turn_seconds_out_of_range',
  INVALID_CURSOR: 'invalid_cursor',
  RATE_LIMITED: 'rate_limited',
  RATE_LIMITER_UNAVAILABLE: 'rate_limiter_unavailable',
  // the rules
  NOT_YOUR_TURN: 'not_your_turn',
  MUST_ROLL_FIRST: 'must_roll_first',
  NO_ROLLS_LEFT: 'no_rolls_left',
  TOO_MANY_KEEPS: 'too_many_keeps',
  BOX_FILLED: 'box_filled',
  UNKNOWN_BOX: 'unknown_box',
  JOKER_LOWER_BOX: 'joker_lower_box',
  JOKER_FORCES_UPPER: 'joker_forces_upper',
  UPPER_SECTION_FIRST: 'upper_section_first',
  // the room
  GAME_NOT_STARTED: 'game_not_started',
  GAME_OVER: 'game_over',
  GAME_IN_PROGRESS: 'game_in_progress',
  REMATCH_STARTED: 'rematch_started',
  ROOM_FULL: 'room_full',
  ROOM_CLOSED: 'room_closed',
  SPECTATORS_FULL: 'spectators_full',
  STALE_VERSION: 'stale_version',
  ID_REUSED: 'id_reused',
  RESIGNED: 'resigned',
  // names
  NAME_EMPTY: 'name_empty',
  NAME_TOO_LONG: 'name_too_long',
  NAME_INVALID: 'name_invalid',
  NAME_TAKEN: 'name_taken',
  // chat
  CHAT_EMPTY: 'chat_empty',
  CHAT_TOO_LONG: 'chat_too_long',
  CHAT_INVALID: 'chat_invalid',
  USERNAME_TAKEN: 'username_taken',
  WRONG_PASSWORD: 'wrong_password',
  // turn notifications
  INVALID_SUBSCRIPTION: 'invalid_subscription',
  TOO_MANY_SUBSCRIPTIONS: 'too_many_subscriptions',
  PUSH_UNAVAILABLE: 'push_unavailable',
  // the server
  STRATEGY_UNAVAILABLE: 'strategy_unavailable',
  SERVER_BUSY: 'server_busy',
  HTTP_ERROR: 'http_error',
  INTERNAL_ERROR: 'internal_error',
});

/** @typedef {typeof ErrorCode[keyof typeof ErrorCode]} ErrorCodeValue */

/** Every error code, in the schema's order. @type {readonly ErrorCodeValue[]} */
export const ERROR_CODES = Object.freeze(Object.values(ErrorCode));

/**
 * Whether `code` is one of the error codes this client knows.
 * @param {unknown} code
 * @returns {code is ErrorCodeValue}
 */
export function isErrorCode(code) {
  return typeof code === 'string' && /** @type {readonly string[]} */ (ERROR_CODES).includes(code);
}

/**
 * The codes a room socket closes with. The 4xxx codes are the server's; 1008,
 * 1009, 1011, 1012 and 1013 are WebSocket standard codes the server uses.
 */
export const CloseCode = Object.freeze({
  /** more messages than the flood limit */
  POLICY: 1008,
  /** a frame or message over the size limit */
  TOO_BIG: 1009,
  /** the client did not answer the server's pings (keepalive timeout) */
  KEEPALIVE_TIMEOUT: 1011,
  /** the server is shutting down: reconnect with `after` */
  GOING_AWAY: 1012,
  /** the client fell too far behind: reconnect with `after` */
  TRY_AGAIN_LATER: 1013,
  /** no hello in time, a first message that is not a hello, or a second hello */
  BAD_HELLO: 4400,
  /** an unknown or foreign token in the hello */
  BAD_TOKEN: 4401,
  /** this socket's seat left the room or was removed */
  SEAT_GONE: 4403,
  /** no such room */
  UNKNOWN_ROOM: 4404,
  /** the room has as many spectators as it takes */
  SPECTATORS_FULL: 4409,
  /** too many failed room lookups or open sockets from this address */
  RATE_LIMITED: 4429,
});

/** @typedef {typeof CloseCode[keyof typeof CloseCode]} CloseCodeValue */

/**
 * Close codes after which the connection does not reconnect by itself, and
 * why (the `reason` of a {@link ConnectionClosed}).
 * @type {Readonly<Record<number, FatalReason>>}
 */
export const FATAL_CLOSE_CODES = Object.freeze({
  [CloseCode.UNKNOWN_ROOM]: 'unknown_room',
  [CloseCode.BAD_TOKEN]: 'bad_token',
  [CloseCode.SEAT_GONE]: 'seat_gone',
  [CloseCode.SPECTATORS_FULL]: 'spectators_full',
  [CloseCode.RATE_LIMITED]: 'rate_limited',
  [CloseCode.BAD_HELLO]: 'bad_hello',
  [CloseCode.POLICY]: 'flooded',
  [CloseCode.TOO_BIG]: 'too_big',
});

/**
 * Why a connection stopped for good: a fatal close code's meaning, `closed`
 * (the application called close()), or `gave_up` (maxRetries reached).
 * @typedef {'unknown_room' | 'bad_token' | 'seat_gone' | 'spectators_full' | 'rate_limited'
 *   | 'bad_hello' | 'flooded' | 'too_big' | 'closed' | 'gave_up'} FatalReason
 */

/**
 * Whether a close code means "stop": everything else (1011, 1012, 1013, a lost
 * network: 1005, 1006, ...) is retried with backoff.
 * @param {number} code
 * @returns {boolean}
 */
export function isFatalClose(code) {
  return Object.prototype.hasOwnProperty.call(FATAL_CLOSE_CODES, code);
}
