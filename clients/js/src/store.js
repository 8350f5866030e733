// The room a client holds, and who is told when it changes.

/** @typedef {import('./types.js').Room} Room */
/** @typedef {import('./types.js').Player} Player */
/** @typedef {import('./types.js').RoomEvent} RoomEvent */

/**
 * What changed the room: one of the room's events, or a notice without an
 * event: the welcome of a (re)connection, a presence change, a resync (the
 * room read again over REST), or a room set by the application.
 * @typedef {RoomEvent
 *   | {type: 'welcome', you: Player | null}
 *   | {type: 'presence', player_id: string, connected: boolean}
 *   | {type: 'resync'}
 *   | {type: 'set'}} RoomUpdate
 */

/**
 * @callback RoomListener
 * @param {Room} room the room after the update (treat it as immutable: a new
 *   object on every change, sharing the parts that did not change)
 * @param {RoomUpdate} update
 * @returns {void}
 */

/**
 * @param {unknown} error
 */
function report(error) {
  const reportError = /** @type {{reportError?: (e: unknown) => void}} */ (globalThis).reportError;
  if (typeof reportError === 'function') reportError(error);
  else console.error(error);
}

/**
 * A room view with subscriptions. A RoomConnection keeps one up to date; it
 * works on its own too (for a room read over REST).
 */
export class RoomStore {
  /** @param {Room | null} [room] */
  constructor(room = null) {
    /** @private @type {Room | null} */
    this._room = room;
    /** @private @type {Set<RoomListener>} */
    this._listeners = new Set();
    /** @private @type {Map<string, boolean>} connected flags from presence messages */
    this._presence = new Map();
  }

  /** The room as the client holds it (null before the first welcome). */
  get room() {
    return this._room;
  }

  /** The room's version, or null. */
  get version() {
    return this._room ? this._room.version : null;
  }

  /**
   * Call `listener(room, update)` after every change; returns a function that
   * stops it.
   * @param {RoomListener} listener
   * @returns {() => void}
   */
  subscribe(listener) {
    this._listeners.add(listener);
    return () => {
      this._listeners.delete(listener);
    };
  }

  /**
   * Replace the room and tell the listeners.
   * @param {Room} room
   * @param {RoomUpdate} [update]
   */
  set(room, update = { type: 'set' }) {
    this.replace(room);
    this.notify(update);
  }

  /**
   * Replace the room without telling anyone yet (see notify). The connected
   * flags from presence messages since the last welcome are kept.
   * @param {Room} room
   */
  replace(room) {
    this._room = this._withPresence(room);
  }

  /**
   * Forget the presence flags (a welcome's room has them as they are now).
   */
  resetPresence() {
    this._presence.clear();
  }

  /**
   * A seat's socket opened or its last one closed: set its `connected` flag.
   * @param {string} playerId
   * @param {boolean} connected
   */
  setConnected(playerId, connected) {
    this._presence.set(playerId, connected);
    if (this._room) this._room = this._withPresence(this._room);
  }

  /**
   * Tell the listeners about `update` (the room is already replaced).
   * @param {RoomUpdate} update
   */
  notify(update) {
    const room = this._room;
    if (room === null) return;
    for (const listener of [...this._listeners]) {
      try {
        listener(room, update);
      } catch (error) {
        report(error);
      }
    }
  }

  /**
   * Resolves with the room once `predicate(room)` holds (checked now and
   * after every update); rejects after `timeout` ms.
   * @param {(room: Room) => boolean} predicate
   * @param {{timeout?: number}} [options]
   * @returns {Promise<Room>}
   */
  when(predicate, options = {}) {
    const timeout = options.timeout ?? 10000;
    if (this._room && predicate(this._room)) return Promise.resolve(this._room);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        stop();
        reject(new Error(`room condition not met within ${timeout} ms (room at version ${this.version})`));
      }, timeout);
      const stop = this.subscribe((room) => {
        if (predicate(room)) {
          clearTimeout(timer);
          stop();
          resolve(room);
        }
      });
    });
  }

  /**
   * @private
   * @param {Room} room
   * @returns {Room}
   */
  _withPresence(room) {
    if (this._presence.size === 0 || !Array.isArray(room.players)) return room;
    let changed = false;
    const players = room.players.map((player) => {
      const connected = this._presence.get(player.id);
      if (connected === undefined || player.bot !== null || player.connected === connected) return player;
      changed = true;
      return { ...player, connected };
    });
    return changed ? { ...room, players } : room;
  }
}
