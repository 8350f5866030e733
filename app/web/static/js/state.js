// State: the room is the SDK's RoomStore (kept equal to the server's room by
// the connection: welcome, patches, resync); this module adds only what the
// server does not hold (this tab's seat, a keep in flight, the last hint,
// fetched chances and analyses, the event log) and answers questions about it.
import { t, has } from './i18n.js';

export const S = {
  rulesets: {}, // GET /api/rulesets by name
  code: null,
  seat: null, // {token, playerId, name}
  conn: null, // the SDK's RoomConnection
  store: null, // its RoomStore
  status: 'offline',
  log: [], // [{version, event}] newest first
  chat: [], // the chat events [{version, event, name}], oldest first (drawn as text, never as markup)
  chatOpen: true, // the chat panel is open
  pendingKept: null, // the kept dice of a keep action not yet acknowledged (shown meanwhile)
  keepSeq: 0,
  rolled: new Set(), // positions that just changed, for the roll animation
  rolledVersion: 0,
  busy: false, // a roll or score in flight
  hint: null, // the last hint, shown until the dice change
  chances: null, // the win chances of the current game (GET /chances)
  analyses: {}, // post-game analyses by game number (null while loading)
  review: null, // the game number whose analysis the end screen shows
  showQr: false, // the invite card shows the link's QR code
  turnInView: null, // the turn ('game:player') whose scorecard column was last scrolled into view
};

export const room = () => (S.store ? S.store.room : null);
export const ruleset = () => (room() ? S.rulesets[room().ruleset] : null);
export const me = () => (S.seat ? S.seat.playerId : null);

/** A room with one person and bots only, every seat taken: nobody to invite, chat with or be told
 * it is your turn by (play against the computer). */
export function vsComputer(r) {
  return r.players.length >= r.max_players && r.players.filter((p) => !p.bot).length === 1 && r.players.some((p) => p.bot);
}

/** The bot level a newcomer meets first, on "Play against the computer" and in "Add a bot" alike:
 * the casual bot (it plays sensibly and can be beaten), else the middle one the server offers. */
export function newcomerLevel(levels) {
  return levels.includes('casual') ? 'casual' : levels[Math.floor(levels.length / 2)];
}

/** This tab's seat as the room shows it (null for a spectator). */
export const mySeat = () => room()?.players.find((p) => p.id === me()) || null;

/** My move to make: my seat's turn, and I have not resigned (the autopilot plays a resigned seat's turns). */
export function myTurn() {
  const r = room();
  const turn = r && r.game && r.game.turn;
  return Boolean(turn && me() && turn.player_id === me() && r.status === 'playing' && !mySeat()?.resigned);
}

/** Which dice are kept, as the screen shows them: the server's, or this tab's keep while it is in flight. */
export function keptShown() {
  const turn = room()?.game?.turn;
  if (!turn) return [false, false, false, false, false];
  return myTurn() && S.pendingKept ? S.pendingKept : turn.kept;
}

export function playerName(id) {
  const player = room()?.players.find((p) => p.id === id);
  return player ? player.name : '?';
}

export function boxLabel(box) {
  const r = room();
  const key = r ? `box.${r.ruleset}.${box}` : '';
  if (key && has(key)) return t(key);
  const known = ruleset()?.boxes.find((b) => b.id === box);
  return known ? known.label : box;
}
