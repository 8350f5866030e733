// The SDK's names for the shapes of the REST API and the room socket. The
// shapes are generated from the server's own documents (`make sdk-types`):
// generated/protocol.js from GET /api/protocol.json, generated/rest.js from
// /openapi.json, generated/constants.js for the lists of values. This module
// only names them as the SDK does and narrows the few that the documents
// leave loose. Types only: it exports nothing at runtime.

/** @typedef {import('./generated/constants.js').Ruleset} Ruleset */
/** @typedef {import('./generated/constants.js').BotLevel} BotLevel */
/** @typedef {import('./generated/constants.js').BotSpeed} BotSpeed */
/** @typedef {import('./generated/constants.js').Reaction} Reaction */
/** @typedef {import('./generated/constants.js').Language} Language */
/** @typedef {import('./generated/constants.js').EventType} EventType */

// -- the room ---------------------------------------------------------------------------------

/** @typedef {import('./generated/protocol.js').RoomOut} Room */
/** @typedef {import('./generated/protocol.js').RoomOptions} RoomOptions */
/** @typedef {import('./generated/protocol.js').PlayerOut} Player */
/** @typedef {import('./generated/protocol.js').GameOut} Game */
/** @typedef {import('./generated/protocol.js').TurnOut} Turn */
/** @typedef {import('./generated/protocol.js').ScorecardOut} Scorecard */
/** @typedef {import('./generated/protocol.js').RolloffEntryOut} RolloffEntry */
/** @typedef {import('./generated/protocol.js').GameSummary} GameSummary */
/** @typedef {import('./generated/protocol.js').SeriesLine} SeriesLine */
/** @typedef {import('./generated/protocol.js').RematchOut} Rematch */

// -- actions ----------------------------------------------------------------------------------

/** @typedef {import('./generated/protocol.js').RollAction} RollAction */
/** @typedef {import('./generated/protocol.js').KeepAction} KeepAction */
/** @typedef {import('./generated/protocol.js').ScoreAction} ScoreAction */
/** @typedef {RollAction | KeepAction | ScoreAction} Action */

// -- events -----------------------------------------------------------------------------------

/** @typedef {import('./generated/protocol.js').Event} RoomEvent every event, as protocol 1 and REST carry it */
/**
 * An event as protocol 2's event message carries it: turn_started, kept and
 * rolled may leave out `data` (it is in the room once the patch is applied;
 * the connection puts it back, see events.js), the others are as in RoomEvent.
 * @typedef {import('./generated/protocol.js').EventOnV2} WireEvent
 */
/** @typedef {import('./generated/protocol.js').ChatEvent} ChatEvent the text is user content: show it as text */
/** @typedef {import('./generated/rest.js').Chat} ChatBody */

// -- socket messages --------------------------------------------------------------------------

/**
 * One RFC 6902 operation. The server sends add, remove and replace; the
 * client's applier (patch.js) takes all six.
 * @typedef {object} PatchOp
 * @property {'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'} op
 * @property {string} path an RFC 6901 pointer; '' is the whole document
 * @property {unknown} [value]
 * @property {string} [from]
 */

/** @typedef {import('./generated/protocol.js').Hello} HelloMessage */
/** @typedef {import('./generated/protocol.js').ActionMessage} ActionMessage */
/** @typedef {import('./generated/protocol.js').ClientMessage} ClientMessage */
/** @typedef {import('./generated/protocol.js').Welcome} WelcomeMessage */
/** @typedef {import('./generated/protocol.js').EventV1} EventMessageV1 */
/** @typedef {import('./generated/protocol.js').EventV2} EventMessageV2 */
/** @typedef {import('./generated/protocol.js').Presence} PresenceMessage */
/** @typedef {import('./generated/protocol.js').Ack} AckMessage */
/** @typedef {import('./generated/protocol.js').SocketError} ErrorMessage */
/** @typedef {import('./generated/protocol.js').Pong} PongMessage */
/**
 * @typedef {import('./generated/protocol.js').ServerMessageV1
 *   | import('./generated/protocol.js').ServerMessageV2} ServerMessage
 */

// -- REST answers -----------------------------------------------------------------------------

/** @typedef {import('./generated/rest.js').Created} CreatedRoom */
/** @typedef {import('./generated/rest.js').Joined} JoinedRoom */
/** @typedef {import('./generated/rest.js').QuickPlayed} QuickPlayed */
/** @typedef {import('./generated/rest.js').PublicRoomOut} PublicRoom */
/** @typedef {import('./generated/rest.js').PublicRoomsOut} PublicRooms */
/** @typedef {import('./generated/rest.js').RulesetOut} RulesetInfo */
/** @typedef {import('./generated/rest.js').HintOut} Hint */
// The REST document types events loosely (any type, any data); these are the same answers
// with the events as the protocol's schema types them.
/** @typedef {Omit<import('./generated/rest.js').ActionOut, 'events'> & {events: RoomEvent[]}} ActionResult */
/** @typedef {Omit<import('./generated/rest.js').EventsOut, 'events'> & {events: RoomEvent[]}} EventsPage */
/** @typedef {Omit<import('./generated/rest.js').ChatOut, 'event'> & {event: ChatEvent}} ChatResult */

export {};
