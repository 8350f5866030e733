// The shapes of the REST API and the room socket (docs/api.md; the socket's
// JSON Schema is GET /api/protocol.json). Types only: this module exports
// nothing at runtime.

/**
 * @typedef {'yahtzee' | 'yacht' | 'yatzy'} Ruleset
 * @typedef {'optimal' | 'strong' | 'casual' | 'beginner' | 'greedy'} BotLevel
 */

/**
 * @typedef {object} Player
 * @property {string} id
 * @property {string} name
 * @property {number | null} seat 0-based; null once the player has left
 * @property {BotLevel | null} bot the bot's level, or null for a person
 * @property {boolean} connected follows `presence` messages on a socket
 * @property {boolean} host
 * @property {boolean} away timed out twice in a row: the autopilot plays their turns until they are back
 * @property {boolean} resigned resigned from the current game: the autopilot finishes their scorecard
 * @property {boolean} muted the host muted the seat's chat
 */

/**
 * @typedef {object} RoomOptions
 * @property {boolean} hints
 * @property {boolean} [chat] chat and reactions allowed (default true)
 * @property {'forced' | 'free'} [joker] Yahtzee only
 * @property {boolean} [upper_first] Yahtzee only
 * @property {number | null} [turn_seconds] the turn clock; null: untimed
 * @property {boolean} [public] listed by GET /api/rooms while in the lobby
 * @property {boolean} [auto_start] the game starts when the last seat is taken
 * @property {'slow' | 'normal' | 'fast' | 'instant'} [bot_speed] how fast the room's bots play (default normal)
 */

/**
 * @typedef {object} RolloffEntry
 * @property {string} player_id
 * @property {number[]} dice
 * @property {number} total
 */

/**
 * @typedef {object} Turn
 * @property {string} player_id
 * @property {number[] | null} dice null before the turn's first roll
 * @property {boolean[]} kept
 * @property {number} rolls_left
 * @property {Record<string, number>} scorable the boxes the player may fill now, with their points
 */

/**
 * @typedef {object} Scorecard
 * @property {Record<string, number | null>} boxes
 * @property {number} upper_total
 * @property {number} upper_bonus
 * @property {number} lower_total
 * @property {number} yahtzee_bonus
 * @property {number} total
 */

/**
 * @typedef {object} Game
 * @property {number} number
 * @property {'playing' | 'finished'} status
 * @property {number} round
 * @property {string[]} order
 * @property {RolloffEntry[][]} rolloff
 * @property {Turn | null} turn
 * @property {Record<string, Scorecard>} scorecards
 * @property {string[]} winners
 * @property {{commitment: string, seed: string | null}} fairness
 * @property {string | null} deadline when the current turn times out (ISO-8601 UTC); null: untimed
 * @property {Record<string, number>} hints each player's hinted rolls in this game (hint_used)
 * @property {string | null} absent_deadline untimed rooms: the person whose turn it is has no socket open; their seat is away at this time
 * @property {'completed' | 'resigned' | null} ended null while played; resigned: it ended at once when every other person had resigned
 */

/**
 * @typedef {object} GameSummary
 * @property {number} number
 * @property {Record<string, number>} totals
 * @property {string[]} winners
 * @property {string[]} resigned the players who resigned from that game
 * @property {'completed' | 'resigned'} ended resigned: it ended at once when every other person had resigned
 */

/**
 * @typedef {object} SeriesLine One player's line of the room's score pad
 * @property {string} player_id
 * @property {string | null} name the name they had
 * @property {number} games finished games of the room the player played
 * @property {number} total the series total: the sum of the player's totals over those games
 * @property {number} wins
 * @property {boolean} seated false: the player has left the room
 */

/**
 * @typedef {object} Rematch Play again after the last game
 * @property {number} game the game just finished
 * @property {string[]} ready seats that accepted (bots at once)
 * @property {string[]} waiting people still to accept (seats that resigned are not waited for)
 */

/**
 * @typedef {object} Room
 * @property {string} code
 * @property {Ruleset} ruleset
 * @property {RoomOptions} options
 * @property {number} max_players
 * @property {'lobby' | 'playing' | 'finished' | 'closed'} status
 * @property {string | null} host_id
 * @property {Player[]} players
 * @property {number} version the version of the room's latest event
 * @property {Game | null} game
 * @property {GameSummary[]} games
 * @property {Record<string, Record<string, number>>} best
 * @property {SeriesLine[]} series the score pad: each player's series total, seated players first
 * @property {Rematch | null} rematch null unless the room's last game is finished
 */

// -- actions ------------------------------------------------------------------------------

/**
 * @typedef {object} ActionCommon
 * @property {string} [id] client id for idempotency (the connection makes one when absent)
 * @property {number} [expected_version] refused with stale_version unless the room is at it
 */
/** @typedef {ActionCommon & {type: 'roll', keep?: number[]}} RollAction */
/** @typedef {ActionCommon & {type: 'keep', dice: number[]}} KeepAction */
/** @typedef {ActionCommon & {type: 'score', box: string}} ScoreAction */
/** @typedef {RollAction | KeepAction | ScoreAction} Action */

// -- events -------------------------------------------------------------------------------

/**
 * @template {string} T
 * @template D
 * @typedef {object} EventOf
 * @property {number} version consecutive per room, from 1
 * @property {T} type
 * @property {string | null} player_id who caused it (null for game_finished)
 * @property {D} data
 * @property {string} at ISO-8601 UTC
 */

/** @typedef {EventOf<'player_joined', {player: Player}>} PlayerJoinedEvent */
/** @typedef {EventOf<'player_left', {player: Player}>} PlayerLeftEvent */
/** @typedef {EventOf<'seat_token_rotated', {player: Player}>} SeatTokenRotatedEvent */
/** @typedef {EventOf<'room_closed', {reason: 'no_players'}>} RoomClosedEvent */
/** @typedef {EventOf<'game_started', {number: number, order: string[], rolloff: RolloffEntry[][], commitment: string}>} GameStartedEvent */
/** @typedef {EventOf<'turn_started', {player_id: string, round: number, deadline: string | null}>} TurnStartedEvent */
/** @typedef {EventOf<'kept', {kept: boolean[]}>} KeptEvent */
/** @typedef {EventOf<'rolled', {dice: number[], kept: boolean[], rolls_left: number}>} RolledEvent */
/** @typedef {EventOf<'scored', {box: string, points: number, yahtzee_bonus: number, upper_bonus: number, total: number}>} ScoredEvent */
/** @typedef {EventOf<'game_finished', {totals: Record<string, number>, winners: string[], seed: string, reason?: 'completed' | 'resigned'}>} GameFinishedEvent */
/** @typedef {EventOf<'turn_timed_out', {player_id: string}>} TurnTimedOutEvent */
/** @typedef {EventOf<'player_absent', {player_id: string, deadline: string}>} PlayerAbsentEvent untimed room: the person whose turn it is has gone */
/** @typedef {EventOf<'player_away', {player_id: string}>} PlayerAwayEvent */
/** @typedef {EventOf<'player_back', {player_id: string}>} PlayerBackEvent */
/** @typedef {EventOf<'player_resigned', {player_id: string}>} PlayerResignedEvent */
/** @typedef {EventOf<'rematch_accepted', Rematch>} RematchAcceptedEvent */
/** @typedef {EventOf<'hint_used', {player_id: string, round: number, rolls_left: number}>} HintUsedEvent */
/** @typedef {'👍' | '👏' | '😂' | '😮' | '😢' | '🎉' | '🔥' | '🎲'} Reaction */
/** @typedef {EventOf<'chat', {text: string} | {reaction: Reaction}>} ChatEvent the text is user content: show it as text */
/** @typedef {EventOf<'player_muted', {player_id: string}>} PlayerMutedEvent player_id: the host; data.player_id: the seat */
/** @typedef {EventOf<'player_unmuted', {player_id: string}>} PlayerUnmutedEvent */
/** @typedef {{text: string, id?: string} | {reaction: Reaction, id?: string}} ChatBody */

/**
 * @typedef {PlayerJoinedEvent | PlayerLeftEvent | SeatTokenRotatedEvent | RoomClosedEvent | GameStartedEvent | TurnStartedEvent
 *   | KeptEvent | RolledEvent | ScoredEvent | GameFinishedEvent | TurnTimedOutEvent | PlayerAbsentEvent | PlayerAwayEvent | PlayerBackEvent
 *   | PlayerResignedEvent | RematchAcceptedEvent | HintUsedEvent | ChatEvent | PlayerMutedEvent | PlayerUnmutedEvent} RoomEvent
 */

/**
 * @template {{type: string, data: unknown}} E
 * @typedef {Omit<E, 'data'> & {data?: E['data']}} WithoutData
 */

/**
 * An event as protocol 2's event message carries it: turn_started, kept and
 * rolled may leave out `data` (it is in the room once the patch is applied;
 * the connection puts it back, see events.js), the others are as in RoomEvent.
 * @typedef {PlayerJoinedEvent | PlayerLeftEvent | SeatTokenRotatedEvent | RoomClosedEvent | GameStartedEvent
 *   | WithoutData<TurnStartedEvent> | WithoutData<KeptEvent> | WithoutData<RolledEvent> | ScoredEvent
 *   | GameFinishedEvent | TurnTimedOutEvent | PlayerAbsentEvent | PlayerAwayEvent | PlayerBackEvent | PlayerResignedEvent
 *   | RematchAcceptedEvent | HintUsedEvent | ChatEvent | PlayerMutedEvent | PlayerUnmutedEvent} WireEvent
 */

// -- socket messages ------------------------------------------------------------------------

/**
 * @typedef {object} PatchOp One RFC 6902 operation (the server sends add, remove and replace)
 * @property {'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test'} op
 * @property {string} path an RFC 6901 pointer; '' is the whole document
 * @property {unknown} [value]
 * @property {string} [from]
 */

/** @typedef {{type: 'hello', token: string | null, after?: number, protocol?: 1 | 2}} HelloMessage */
/** @typedef {{type: 'action', action: Action}} ActionMessage */
/** @typedef {{type: 'ping'}} PingMessage */
/** @typedef {HelloMessage | ActionMessage | PingMessage} ClientMessage */

/** @typedef {{type: 'welcome', protocol: 1 | 2, you: Player | null, room: Room}} WelcomeMessage */
/** @typedef {{type: 'event', event: RoomEvent, room: Room | null}} EventMessageV1 */
/** @typedef {{type: 'event', event: WireEvent, patch: PatchOp[]}} EventMessageV2 */
/** @typedef {{type: 'presence', player_id: string, connected: boolean}} PresenceMessage */
/** @typedef {{type: 'ack', id: string | null, version: number}} AckMessage */
/** @typedef {{type: 'error', id: string | null, code: import('./codes.js').ErrorCodeValue, detail: string}} ErrorMessage */
/** @typedef {{type: 'pong'}} PongMessage */
/**
 * @typedef {WelcomeMessage | EventMessageV1 | EventMessageV2 | PresenceMessage | AckMessage | ErrorMessage
 *   | PongMessage} ServerMessage
 */

// -- REST answers ---------------------------------------------------------------------------

/** @typedef {{room: Room, player: Player, token: string}} CreatedRoom */
/** @typedef {{player: Player, token: string}} JoinedRoom */
/** @typedef {{room: Room, player: Player, token: string, created: boolean}} QuickPlayed */
/** @typedef {{code: string, ruleset: Ruleset, options: RoomOptions, players: Player[], max_players: number, created: string}} PublicRoom */
/** @typedef {{rooms: PublicRoom[], next: string | null}} PublicRooms */
/** @typedef {{version: number, events: RoomEvent[], room: Room}} ActionResult */
/** @typedef {{events: RoomEvent[], version: number, more: boolean}} EventsPage */

/**
 * @typedef {object} RulesetInfo
 * @property {Ruleset} name
 * @property {string} label
 * @property {number} rounds
 * @property {{id: string, label: string, section: string}[]} boxes in scorecard order
 * @property {{id: 'upper' | 'lower', label: string}[]} [sections] in scorecard order
 * @property {Record<string, {default: unknown, choices: unknown[]}>} options
 * @property {{threshold: number, points: number} | null} [upper_bonus] null: no upper bonus
 * @property {number | null} [yahtzee_bonus] points per extra Yahtzee; null: none
 * @property {BotLevel[]} [bot_levels] the levels addBot takes, strongest first
 */

/**
 * @typedef {object} Hint
 * @property {number} rolls_left
 * @property {{type: 'keep', dice: number[]} | {type: 'score', box: string}} best
 * @property {{dice: number[], values: number[], ev: number}[]} keeps
 * @property {{box: string, points: number, ev: number}[]} boxes
 */

export {};
