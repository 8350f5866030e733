// Protocol 2 leaves out the data of turn_started, kept and rolled when the
// room, once patched, is the room at the event's version (docs/api.md,
// "Protocol 2"): it is all in the room. This puts it back.

/** @typedef {import('./types.js').Room} Room */
/** @typedef {import('./types.js').RoomEvent} RoomEvent */
/** @typedef {import('./types.js').WireEvent} WireEvent */

/**
 * `event` with its `data`: as it came, or, for an event that left it out,
 * read from `room`. Null when the data is missing and `room` is not the
 * room at the event's version (read the event over REST instead).
 * @param {WireEvent} event
 * @param {Room | null} room
 * @returns {RoomEvent | null}
 */
export function withData(event, room) {
  if ('data' in event && event.data !== undefined) return /** @type {RoomEvent} */ (event);
  const game = room && room.version === event.version ? room.game : null;
  const turn = game ? game.turn : null;
  if (!game || !turn) return null;
  switch (event.type) {
    case 'turn_started':
      return { ...event, data: { player_id: turn.player_id, round: game.round, deadline: game.deadline } };
    case 'kept':
      return { ...event, data: { kept: [...turn.kept] } };
    case 'rolled':
      if (turn.dice === null) return null;
      return { ...event, data: { dice: [...turn.dice], kept: [...turn.kept], rolls_left: turn.rolls_left } };
    default:
      return null;
  }
}
