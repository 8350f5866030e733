// The room's WebSocket (docs/api.md): hello, then events in version order.
// Reconnects by itself and resumes with `after`, so nothing is missed.
// Close codes after which reconnecting cannot help (docs/api.md): unknown
// room, unknown token, seat gone, room full of spectators, address limits.
const FATAL = new Set([4404, 4401, 4403, 4409, 4429]);

function actionId() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  return `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 10)}`;
}

export class Live {
  constructor(code, token, handlers) {
    this.code = code;
    this.token = token;
    this.on = handlers;
    this.version = null; // the last event version this client has
    this.pending = new Map();
    this.retry = 0;
    this.stopped = false;
    this.ws = null;
    this.pinger = null;
  }

  start() {
    this.connect();
    this.pinger = setInterval(() => this.send({ type: 'ping' }), 25000);
  }

  stop() {
    this.stopped = true;
    clearInterval(this.pinger);
    if (this.ws) this.ws.close(1000);
  }

  connect() {
    this.on.status('connecting');
    const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
    const ws = new WebSocket(`${scheme}://${location.host}/api/rooms/${encodeURIComponent(this.code)}/ws`);
    this.ws = ws;
    ws.onopen = () => {
      const hello = { type: 'hello', token: this.token };
      if (this.version !== null) hello.after = this.version;
      ws.send(JSON.stringify(hello));
    };
    ws.onmessage = (message) => this.receive(JSON.parse(message.data));
    ws.onclose = (closed) => {
      if (this.ws === ws) this.ws = null;
      for (const { reject } of this.pending.values()) reject({ code: 'network', detail: '' });
      this.pending.clear();
      if (this.stopped) return;
      if (FATAL.has(closed.code)) {
        this.on.fatal(closed.code);
        return;
      }
      this.on.status('offline');
      const delay = Math.min(5000, 250 * 2 ** this.retry++);
      setTimeout(() => !this.stopped && this.connect(), delay);
    };
  }

  send(message) {
    if (this.ws && this.ws.readyState === WebSocket.OPEN) {
      this.ws.send(JSON.stringify(message));
      return true;
    }
    return false;
  }

  receive(message) {
    switch (message.type) {
      case 'welcome':
        this.retry = 0;
        this.on.status('online');
        this.on.welcome(message.room, message.you);
        if (this.version === null) this.version = message.room.version;
        break;
      case 'event': {
        const { version } = message.event;
        if (this.version !== null && version <= this.version) return;
        const gap = this.version !== null && version > this.version + 1;
        this.version = version;
        this.on.event(message.event, message.room, gap);
        break;
      }
      case 'presence':
        this.on.presence(message.player_id, message.connected);
        break;
      case 'ack':
      case 'error': {
        const waiting = message.id && this.pending.get(message.id);
        if (waiting) {
          this.pending.delete(message.id);
          if (message.type === 'ack') waiting.resolve(message);
          else waiting.reject(message);
        } else if (message.type === 'error') {
          this.on.error(message);
        }
        break;
      }
      default:
        break;
    }
  }

  /** Send an action; resolves with its ack, rejects with {code, detail}. */
  act(action) {
    const id = actionId();
    return new Promise((resolve, reject) => {
      if (!this.send({ type: 'action', action: { ...action, id } })) {
        reject({ code: 'network', detail: '' });
        return;
      }
      this.pending.set(id, { resolve, reject });
    });
  }
}
