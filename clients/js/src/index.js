// @dicecup/client: Dicecup's JavaScript client (docs/api.md). Plain ES
// modules with relative imports: a browser can import this file as it is.

export { ErrorCode, ERROR_CODES, isErrorCode, CloseCode, CLOSE_CODE_MEANINGS, FATAL_CLOSE_CODES, isFatalClose } from './codes.js';
export { applyPatch, PatchError, parsePointer, escapeToken, jsonEqual } from './patch.js';
export { DicecupApi, DicecupError, resolveBase, apiUrl, socketUrl } from './rest.js';
export { RoomStore } from './store.js';
export { withData } from './events.js';
// generated from the server's documents (`make sdk-types`)
export {
  REACTIONS,
  RULESETS,
  BOT_LEVELS,
  BOT_SPEEDS,
  LANGUAGES,
  PROTOCOLS,
  ROOM_STATUSES,
  GAME_STATUSES,
  EVENT_TYPES,
  COMPACT_EVENT_TYPES,
  CLIENT_MESSAGE_TYPES,
  SERVER_MESSAGE_TYPES,
} from './generated/constants.js';
export { RoomConnection, ConnectionClosed, newActionId } from './connection.js';

/** @typedef {import('./types.js').Room} Room */
/** @typedef {import('./types.js').Player} Player */
/** @typedef {import('./types.js').Game} Game */
/** @typedef {import('./types.js').Turn} Turn */
/** @typedef {import('./types.js').Scorecard} Scorecard */
/** @typedef {import('./types.js').Action} Action */
/** @typedef {import('./types.js').RoomEvent} RoomEvent */
/** @typedef {import('./types.js').WireEvent} WireEvent */
/** @typedef {import('./types.js').PatchOp} PatchOp */
/** @typedef {import('./types.js').ServerMessage} ServerMessage */
/** @typedef {import('./types.js').ClientMessage} ClientMessage */
/** @typedef {import('./types.js').Ruleset} Ruleset */
/** @typedef {import('./types.js').BotLevel} BotLevel */
/** @typedef {import('./types.js').Reaction} Reaction */
/** @typedef {import('./generated/rest.js').Operations} Operations */
/** @typedef {import('./codes.js').ErrorCodeValue} ErrorCodeValue */
/** @typedef {import('./codes.js').CloseCodeValue} CloseCodeValue */
/** @typedef {import('./codes.js').FatalReason} FatalReason */
/** @typedef {import('./store.js').RoomUpdate} RoomUpdate */
/** @typedef {import('./store.js').RoomListener} RoomListener */
/** @typedef {import('./connection.js').ConnectionOptions} ConnectionOptions */
/** @typedef {import('./connection.js').ConnectionState} ConnectionState */
/** @typedef {import('./connection.js').ConnectionEvents} ConnectionEvents */
