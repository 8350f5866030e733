// Error codes and close codes. The codes themselves are generated from the
// server's documents (generated/constants.js, `make sdk-types`); what this
// client does about a close code is its own choice, made here.

import { CloseCode, ERROR_CODES } from './generated/constants.js';

export { ErrorCode, ERROR_CODES, CloseCode, CLOSE_CODE_MEANINGS } from './generated/constants.js';

/** @typedef {import('./generated/constants.js').ErrorCodeValue} ErrorCodeValue */
/** @typedef {import('./generated/constants.js').CloseCodeValue} CloseCodeValue */

/**
 * Whether `code` is one of the error codes this client knows.
 * @param {unknown} code
 * @returns {code is ErrorCodeValue}
 */
export function isErrorCode(code) {
  return typeof code === 'string' && /** @type {readonly string[]} */ (ERROR_CODES).includes(code);
}

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
