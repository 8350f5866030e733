// Dicecup's web client. Transport: the JavaScript SDK (js/api.js). State: the
// SDK's RoomStore plus this tab's own (js/state.js). Views: js/views.js, drawn
// into a screen made once per room, each part updated only when it changed
// (js/dom.js). Everything the server knows (boxes, sections, bonuses, bot
// levels) comes from GET /api/rulesets; every URL is relative to the page's
// <base>, so the client works under any root path. Every string a person
// reads comes from the message catalog.
import { BASE, DicecupError, RoomConnection, RoomStore, analysis, api, appUrl, chances, rulesets, seats } from './api.js';
import * as A from './attention.js';
import { attrs, esc, fill, focusFirst, keepFocus, reconcile, slot } from './dom.js';
import * as F from './feel.js';
import { howToPlay } from './howto.js';
import { has, language, loadCatalog, n, t } from './i18n.js';
import { LANGUAGE_EVENT, mountLanguageSwitch } from './lang.js';
import * as N from './notify.js';
import * as P from './pages.js';
import * as Q from './quickplay.js';
import * as R from './rejoin.js';
import { S, boxLabel, keptShown, me, myTurn, newcomerLevel, playerName, room as currentRoom } from './state.js';
import { showStorageDenied, storageWorks } from './storage.js';
import * as V from './views.js';

const app = document.getElementById('app');
const statusLine = document.getElementById('status');
const toast = document.getElementById('toast');
const confirmDialog = document.getElementById('confirm');

// Where focus goes when the element that had it is gone (a box just scored,
// the lobby replaced by the game): never back to the top of the page.
const FOCUS_FALLBACK = ['#roll', '#game .score-option', '#end-title', '#play-again', '#start-game', '#join-name', '#turn-banner', '#room-title'];

// ---------------------------------------------------------------- messages

function showError(error) {
  const code = (error && error.code) || 'generic';
  toast.textContent = has(`error.${code}`) ? t(`error.${code}`) : t('error.generic');
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (toast.hidden = true), 4000);
}

function flash(message, ms = 2000) {
  toast.textContent = message;
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (toast.hidden = true), ms);
}

function ask(question, yes, no) {
  return new Promise((resolve) => {
    document.getElementById('confirm-text').textContent = question;
    document.getElementById('confirm-yes').textContent = yes;
    document.getElementById('confirm-no').textContent = no;
    confirmDialog.returnValue = '';
    confirmDialog.addEventListener('close', () => resolve(confirmDialog.returnValue === 'yes'), { once: true });
    confirmDialog.showModal();
  });
}

// ---------------------------------------------------------------- routing (paths relative to the root path)

/** The page's path below the root path: '/', '/r/ABC', '/rules/yacht'. */
function appPath() {
  const path = location.pathname;
  return path.startsWith(BASE.pathname) ? `/${path.slice(BASE.pathname.length)}` : path;
}

/** Show the app page at `path`; `replace`: in place of this one in the history (a form that is done). */
function go(path, { replace = false } = {}) {
  history[replace ? 'replaceState' : 'pushState']({}, '', appUrl(path));
  route();
}

window.addEventListener('popstate', route);

/** A room code as the server makes them: six of its alphabet (app/rooms/secrets.py), any case. */
const ROOM_CODE = /^[ABCDEFGHJKMNPQRSTUVWXYZ23456789]{6}$/;

/** Copy `text`: the Clipboard API where the page may use it, else the selection; whether it worked. */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try {
      await navigator.clipboard.writeText(text);
      return true;
    } catch {
      // no permission: try the selection
    }
  }
  const area = document.createElement('textarea');
  area.value = text;
  area.setAttribute('readonly', '');
  area.style.position = 'fixed';
  area.style.opacity = '0';
  document.body.append(area);
  area.select();
  let copied = false;
  try {
    copied = document.execCommand('copy');
  } catch {
    copied = false;
  }
  area.remove();
  return copied;
}

function route() {
  const path = appPath();
  const page = P.pageFor(path); // profiles, stats, leaderboards, history, replays (js/pages.js)
  if (page) {
    closeRoom();
    statusLine.textContent = '';
    page(app, { go, ask, rulesets: S.rulesets }).catch(showError);
    return;
  }
  const match = path.match(/^\/r\/([^/]*)\/?$/);
  const rules = path.match(/^\/rules\/([a-z]+)\/?$/);
  if (match && !ROOM_CODE.test(decodeURIComponent(match[1]).toUpperCase())) {
    // a malformed code (ab-12, an emoji): say so, and the address bar goes back home
    closeRoom();
    history.replaceState({}, '', appUrl(''));
    renderHome();
    flash(t('ps.bad_code'));
  } else if (match) openRoom(match[1].toUpperCase());
  else if (rules && S.rulesets[rules[1]]) {
    closeRoom();
    statusLine.textContent = '';
    app.innerHTML = howToPlay(S.rulesets[rules[1]]);
    document.title = t('howto.title', { ruleset: t(`ruleset.${rules[1]}`) });
  } else if (path === '/' || (rules && !Object.keys(S.rulesets).length)) {
    closeRoom();
    renderHome(); // (the rule sets unknown, the server unreachable: home says so)
  } else {
    closeRoom();
    statusLine.textContent = '';
    P.notFoundPage(app);
  }
}

// ---------------------------------------------------------------- home

/** The turn clocks offered on create (seconds; 0: untimed). */
const CLOCKS = [
  [0, 'lc.untimed'],
  [30, 'lc.clock_30s'],
  [60, 'lc.clock_1m'],
  [120, 'lc.clock_2m'],
  [300, 'lc.clock_5m'],
  [3600, 'lc.clock_1h'],
  [86400, 'lc.clock_1d'],
];

/** Room option bot_speed: how fast the room's bots play (docs/api.md). */
const BOT_SPEEDS = ['slow', 'normal', 'fast', 'instant'];

function renderHome() {
  document.title = t('app.title');
  statusLine.textContent = '';
  const names = Object.keys(S.rulesets);
  const options = names.map((name) => `<option value="${esc(name)}">${esc(t(`ruleset.${name}`))}</option>`).join('');
  const seatsOptions = [1, 2, 3, 4, 5, 6, 7, 8]
    .map((count) => `<option value="${count}" ${count === 2 ? 'selected' : ''}>${n(count)}</option>`)
    .join('');
  // the bot levels the server has (GET /api/rulesets), strongest first; the newcomer's chosen
  const levels = (S.rulesets[names[0]] || { bot_levels: [] }).bot_levels || [];
  const levelOptions = levels
    .map((level) => `<option value="${esc(level)}" ${level === newcomerLevel(levels) ? 'selected' : ''}>${esc(t(`bot.${level}`))}</option>`)
    .join('');
  const joker = (rules) => rules.options.joker;
  const withJoker = names.filter((name) => joker(S.rulesets[name]));
  const jokerChoices = withJoker.length ? joker(S.rulesets[withJoker[0]]).choices : [];
  app.innerHTML = `
    <section class="card hero"><p>${esc(t('app.tagline'))}</p></section>
    <section class="card vs-computer" id="vs-computer">
      <h2>${esc(t('sr.vs_computer'))}</h2>
      <p class="muted">${esc(t('sr.vs_computer_help'))}</p>
      <div class="row">
        <label>${esc(t('home.ruleset'))}<select id="vs-ruleset">${options}</select></label>
        <label>${esc(t('sr.level'))}<select id="vs-level">${levelOptions}</select></label>
      </div>
      <button class="primary big" data-action="vs-computer" id="vs-computer-play">${esc(t('sr.vs_computer'))}</button>
    </section>
    <section data-slot="profile"></section>
    <section class="card">
      <h1>${esc(t('home.create'))}</h1>
      <form data-form="create" class="stack">
        <label>${esc(t('home.name'))}<input name="name" id="create-name" required maxlength="128" autocomplete="nickname" value="${esc(localStorage.getItem('dicecup.name') || '')}"></label>
        <div class="row">
          <label>${esc(t('home.ruleset'))}<select name="ruleset" id="create-ruleset">${options}</select></label>
          <label>${esc(t('home.seats'))}<select name="max_players" id="create-seats">${seatsOptions}</select></label>
        </div>
        <fieldset class="options-joker">
          <label>${esc(t('home.joker'))}<select name="joker" id="create-joker">
            ${jokerChoices.map((choice) => `<option value="${esc(choice)}">${esc(t(`joker.${choice}`))}</option>`).join('')}
          </select></label>
          <label class="check"><input type="checkbox" name="upper_first" id="create-upper-first">${esc(t('home.upper_first'))}</label>
        </fieldset>
        <label class="check"><input type="checkbox" name="hints" id="create-hints" aria-describedby="create-hints-help">${esc(t('home.hints'))}</label>
        <p class="muted small" id="create-hints-help">${esc(t('home.hints_help'))}</p>
        <label class="check"><input type="checkbox" name="chat" id="create-chat" checked>${esc(t('home.chat'))}</label>
        <label>${esc(t('lc.turn_clock'))}<select name="turn_seconds" id="create-clock">
          ${CLOCKS.map(([seconds, key]) => `<option value="${seconds}">${esc(t(key))}</option>`).join('')}
        </select></label>
        <label class="check"><input type="checkbox" name="public" id="create-public">${esc(t('lc.public'))}</label>
        <label class="check"><input type="checkbox" name="auto_start" id="create-auto-start">${esc(t('lc.auto_start'))}</label>
        <label>${esc(t('feel.bot_speed'))}<select name="bot_speed" id="create-bot-speed">
          ${BOT_SPEEDS.map((speed) => `<option value="${speed}" ${speed === 'normal' ? 'selected' : ''}>${esc(t(`feel.speed.${speed}`))}</option>`).join('')}
        </select></label>
        <button class="primary" id="create-submit">${esc(t('home.create_submit'))}</button>
      </form>
    </section>
    ${Q.card()}
    <section class="card">
      <h2>${esc(t('home.join'))}</h2>
      <form data-form="open" class="row">
        <label>${esc(t('home.code'))}<input name="code" id="open-code" required maxlength="12" autocapitalize="characters" autocomplete="off" spellcheck="false"></label>
        <button id="open-submit">${esc(t('home.join_submit'))}</button>
      </form>
    </section>
    <section class="card">
      <h2>${esc(t('rules.title'))}</h2>
      ${names.map((name) => `<h3>${esc(t(`ruleset.${name}`))}</h3><p>${esc(t(`rules.${name}`))}</p><p><a href="rules/${esc(name)}" data-link>${esc(t('howto.title', { ruleset: t(`ruleset.${name}`) }))}</a></p>`).join('')}
    </section>`;
  // The rule set's own options (GET /api/rulesets): the Joker fieldset only where there is a Joker.
  const select = document.getElementById('create-ruleset');
  const sync = () => (app.querySelector('.options-joker').hidden = !joker(S.rulesets[select.value] || { options: {} }));
  select.addEventListener('change', sync);
  sync();
  // Hints: on for a solo game, off with other players (as the server's default), until the creator chooses.
  const seatsSelect = document.getElementById('create-seats');
  const hints = document.getElementById('create-hints');
  const syncHints = () => {
    if (!hints.dataset.chosen) hints.checked = seatsSelect.value === '1';
  };
  hints.addEventListener('change', () => (hints.dataset.chosen = 'true'));
  seatsSelect.addEventListener('change', syncHints);
  syncHints();
  P.homeCard(app.querySelector('[data-slot="profile"]'));
}

async function createRoom(form) {
  const data = new FormData(form);
  const name = String(data.get('name')).trim();
  const chosen = String(data.get('ruleset'));
  const spec = S.rulesets[chosen].options;
  const options = {
    hints: data.get('hints') === 'on',
    chat: data.get('chat') === 'on',
    public: data.get('public') === 'on',
    auto_start: data.get('auto_start') === 'on',
  };
  const clock = Number(data.get('turn_seconds'));
  if (clock) options.turn_seconds = clock;
  options.bot_speed = String(data.get('bot_speed') || 'normal');
  if (spec.joker) options.joker = String(data.get('joker'));
  if (spec.upper_first) options.upper_first = data.get('upper_first') === 'on';
  const created = await P.createRoom({ ruleset: chosen, name, options, max_players: Number(data.get('max_players')) });
  localStorage.setItem('dicecup.name', created.player.name);
  seats.set(created.room.code, { token: created.token, playerId: created.player.id, name: created.player.name });
  go(`r/${created.room.code}`);
}

// ---------------------------------------------------------------- the room: connection

let unsubscribe = null;

async function openRoom(code) {
  if (S.code === code) return; // already open, or opening
  closeRoom();
  S.code = code;
  S.seat = seats.get(code);
  app.innerHTML = '';
  let room;
  try {
    room = await api.getRoom(code);
  } catch (error) {
    if (S.code !== code) return;
    S.code = null;
    if (error instanceof DicecupError && error.code === 'room_not_found') history.replaceState({}, '', appUrl(''));
    renderHome();
    showError(error);
    return;
  }
  if (S.code !== code || S.store) return;
  if (!S.seat) {
    // a new tab, or the link opened again: the seat this device (or its profile) holds comes back (js/rejoin.js)
    const back = await R.reclaim(room);
    if (S.code !== code || S.store) return;
    S.seat = back;
  }
  S.store = new RoomStore();
  S.store.set(room);
  unsubscribe = S.store.subscribe(onUpdate);
  connect();
  render();
  // during a game the room's card is below the table: focus stays on the table (the tray), not there
  const playing = room.status === 'playing' ? ['#roll', '#turn-banner'] : [];
  focusFirst(S.seat && room.host_id === S.seat.playerId ? ['#start-game', ...playing, '#room-title'] : [...playing, '#join-name', '#room-title']);
  if (room.status === 'playing') fetchChances();
  P.noteRoom(room, S.seat);
  fetchLog(code, room.version);
}

const LOG_SIZE = 40;
const CHAT_SIZE = 50; // chat messages kept on screen
const CHAT_WINDOW = 300; // events read back after a reload to find them

/** Note a chat event (kept apart from the log: messages must not push the moves out of it). */
function noteChat(event, name) {
  if (S.chat.some((entry) => entry.version === event.version)) return;
  S.chat = [...S.chat, { version: event.version, event, name }].sort((a, b) => a.version - b.version).slice(-CHAT_SIZE);
}

/** The event log as the server has it (GET /events): after a reload, or in a new tab, it is not empty. */
async function fetchLog(code, version) {
  let page;
  try {
    page = await api.events(code, { after: Math.max(0, version - CHAT_WINDOW), limit: CHAT_WINDOW });
  } catch {
    return; // the log is a nicety: live events still fill it
  }
  if (S.code !== code) return;
  // names of players who left since, from the events that carry them
  const names = new Map();
  for (const event of page.events) if (event.data && event.data.player) names.set(event.data.player.id, event.data.player.name);
  const nameOf = (id) => (currentRoom()?.players.some((p) => p.id === id) ? playerName(id) : names.get(id) || playerName(id));
  const known = new Set(S.log.map((entry) => entry.version));
  for (const event of page.events) if (event.type === 'chat') noteChat(event, nameOf(event.player_id));
  const restored = page.events
    .filter((event) => !known.has(event.version) && event.type !== 'chat')
    .map((event) => ({ version: event.version, event, name: nameOf(event.player_id), started: nameOf(event.data && event.data.player_id ? event.data.player_id : event.player_id) }));
  S.log = [...S.log, ...restored].sort((a, b) => b.version - a.version).slice(0, LOG_SIZE);
  scheduleRender();
}

function closeRoom() {
  const conn = S.conn;
  S.conn = null;
  if (conn) conn.close();
  if (unsubscribe) unsubscribe();
  unsubscribe = null;
  A.forgetChat();
  Object.assign(S, { code: null, store: null, log: [], chat: [], chances: null, analyses: {}, review: null, hint: null, pendingKept: null, busy: false, showQr: false });
}

function setStatus(status) {
  S.status = status;
  const key = status === 'online' && !S.seat ? 'status.spectator' : `status.${status}`;
  statusLine.textContent = t(key);
  statusLine.dataset.state = status;
  if (currentRoom()) scheduleRender(); // presence dots are grey while this client itself is offline
}

// The browser knows first when this device goes offline; the socket may take a while to notice.
window.addEventListener('offline', () => S.conn && setStatus('offline'));
window.addEventListener('online', () => S.conn && S.conn.state && setStatus(STATES[S.conn.state] || 'connecting'));

const STATES = { idle: 'connecting', connecting: 'connecting', open: 'online', reconnecting: 'offline', closed: 'refused' };

function connect() {
  const old = S.conn;
  const conn = new RoomConnection({ api, code: S.code, token: S.seat ? S.seat.token : null, store: S.store });
  S.conn = conn;
  if (old) old.close();
  const mine = (listener) => (...args) => S.conn === conn && listener(...args);
  conn.on('state', mine((state) => state !== 'closed' && setStatus(STATES[state])));
  conn.on('error', mine((error) => showError(error)));
  conn.on('close', mine(lost));
  setStatus('connecting');
  conn.connect().catch(() => {}); // a refusal arrives as 'close'
}

/** The connection stopped for good (SDK: ConnectionClosed.reason). */
function lost(closed) {
  if (closed.reason === 'closed') return;
  if (closed.reason === 'spectators_full' || closed.reason === 'rate_limited') {
    showError({ code: closed.reason });
    setStatus('refused');
  } else if ((closed.reason === 'bad_token' || closed.reason === 'seat_gone') && S.seat) {
    // Our seat is gone (left, or removed by the host): watch instead.
    seats.forget(S.code);
    S.seat = null;
    showError({ code: 'unauthorized' });
    connect();
    render();
  } else if (closed.reason === 'unknown_room' || closed.reason === 'bad_token' || closed.reason === 'seat_gone') {
    showError({ code: 'room_not_found' });
    go('');
  } else {
    setStatus('refused');
  }
}

/** The store changed: note what this tab tracks about the event, then redraw what changed. */
function onUpdate(room, update) {
  if (typeof update.version === 'number') {
    const event = update;
    const started = event.data && event.data.player_id ? playerName(event.data.player_id) : playerName(event.player_id);
    if (event.type === 'chat') {
      const known = S.chat.some((entry) => entry.version === event.version);
      noteChat(event, playerName(event.player_id));
      // the polite live region reads out what the others say
      if (!known && event.player_id !== me()) {
        announce(V.chatAnnouncement(event, playerName(event.player_id)));
        A.chatArrived(); // a badge if the chat is out of view (js/attention.js)
      }
      return scheduleRender();
    }
    if (S.log.some((entry) => entry.version === event.version)) return scheduleRender(); // a replayed event already in the log
    S.log = [{ version: event.version, event, name: playerName(event.player_id), started }, ...S.log].slice(0, LOG_SIZE);
    if (['rolled', 'kept', 'scored', 'turn_started'].includes(event.type)) S.hint = null;
    if (['rolled', 'scored', 'turn_started', 'game_started'].includes(event.type)) S.pendingKept = null;
    if (event.type === 'rolled') {
      S.rolled = new Set(event.data.kept.flatMap((kept, i) => (kept ? [] : [i])));
      S.rolledVersion = event.version;
    }
    if (['scored', 'game_started', 'player_resigned'].includes(event.type)) fetchChances(); // a resigned seat's chance goes
    if (event.type === 'game_started' || event.type === 'game_finished') P.noteEvent(event, room, S.seat);
    // the polite live region says what the others did (and what my own roll gave)
    const line = V.logLine(event, S.log[0].name, started);
    if (line && (event.player_id !== me() || event.type === 'rolled')) announce(line);
    if (event.type === 'turn_started' && myTurn()) S.focusRoll = true;
    if (event.type === 'player_resigned' && event.data.player_id !== me()) {
      // told where everyone looks, not only in the log: the game may have ended with it
      const ended = room.game && room.game.ended === 'resigned';
      flash(t(ended ? 'lc.resigned_ended' : 'lc.resigned_notice', { name: playerName(event.data.player_id) }), 8000);
    }
    feel(event, room);
  }
  scheduleRender();
}

/** Sounds, vibration and celebrations for a live event (js/feel.js). */
function feel(event, room) {
  if (event.type === 'rolled' && event.player_id === me()) F.play('roll');
  // my turn came round in a game with others: a chime and a buzz (unless muted)
  if (event.type === 'turn_started' && myTurn() && room.players.length > 1) F.yourTurn();
  if (event.type === 'scored') {
    const { box, points, yahtzee_bonus: bonus } = event.data;
    const name = playerName(event.player_id);
    if (FIVE_OF_A_KIND.has(box) && points === 50) F.celebrate({ kind: 'five', name, box: boxLabel(box), points });
    else if (bonus > 0) F.celebrate({ kind: 'bonus', name, box: boxLabel(FIVE_OF_A_KIND_BOX[room.ruleset] || box), points: bonus });
  }
}

/** Each rule set's five-of-a-kind box (worth 50). */
const FIVE_OF_A_KIND_BOX = { yahtzee: 'yahtzee', yacht: 'yacht', yatzy: 'yatzy' };
const FIVE_OF_A_KIND = new Set(Object.values(FIVE_OF_A_KIND_BOX));

function announce(text) {
  const node = document.getElementById('announce');
  if (node) node.textContent = text;
}

// ---------------------------------------------------------------- the room: views

let scheduled = false;
function scheduleRender() {
  if (scheduled) return;
  scheduled = true;
  queueMicrotask(() => {
    scheduled = false;
    render();
  });
}

function render() {
  const room = currentRoom();
  if (!room) return;
  keepFocus(app, FOCUS_FALLBACK, () => draw(room));
  A.keepTrayInView(room, room.players.some((p) => p.id === me()), myTurn());
  if (S.focusRoll) {
    S.focusRoll = false;
    // my turn came round while focus waited on the banner: go to the roll button
    if (document.activeElement && document.activeElement.id === 'turn-banner') focusFirst(['#roll']);
  }
}

function draw(room) {
  // my turn shows in the tab's title, for a player looking at another tab
  document.title = myTurn() ? `${t('game.your_turn')} · ${t('app.title')} · ${room.code}` : `${t('app.title')} · ${room.code}`;
  if (!app.querySelector(':scope > [data-slot="head"]')) {
    app.innerHTML = '<p id="announce" class="sr-only" role="status" aria-live="polite"></p>';
    for (const key of ['head', 'game', 'end', 'lobby', 'log', 'chat']) slot(app, key);
  }
  fill(slot(app, 'head'), V.roomHeader(room));
  const playing = room.status === 'playing' && room.game;
  drawGame(slot(app, 'game'), playing ? room : null);
  drawEnd(slot(app, 'end'), !playing && room.status === 'finished' && room.game ? room : null);
  drawLobby(slot(app, 'lobby'), playing ? null : room);
  drawLog(slot(app, 'log'));
  drawChat(slot(app, 'chat'), room);
  A.watchChat();
  A.drawBadge();
  app.dataset.status = room.status;
  app.dataset.version = room.version;
  markOverflow();
  if (!playing && room.status === 'finished' && room.game) {
    const number = S.review || room.game.number;
    if (!(number in S.analyses)) fetchAnalysis(number);
  }
}

/** The score pad and the scorecards scroll sideways inside their boxes when their players do not
 * fit: say so (a shadow; for the pad a line too). */
function markOverflow() {
  for (const box of document.querySelectorAll('#pad-scroll, .scroll')) {
    const over = box.scrollWidth > box.clientWidth + 1;
    if (box.dataset.overflow !== String(over)) box.dataset.overflow = String(over);
  }
  const pad = document.getElementById('pad-scroll');
  const hint = document.getElementById('pad-hint');
  if (pad && hint && hint.hidden === (pad.dataset.overflow === 'true')) hint.hidden = pad.dataset.overflow !== 'true';
}

window.addEventListener('resize', markOverflow);

function drawEnd(node, room) {
  if (!room) {
    fill(node, '');
    return;
  }
  if (!node.querySelector('#end')) fill(node, '<section class="card end" id="end"></section>');
  const end = node.querySelector('#end');
  for (const [key, html] of V.endParts(room)) fill(slot(end, key), html);
}

function drawLobby(node, room) {
  if (!room) {
    fill(node, '');
    return;
  }
  if (!node.querySelector('#lobby')) {
    fill(node, `<section class="card lobby" id="lobby"><h2></h2><ul class="players"></ul><div class="actions"></div></section>`);
  }
  const lobby = node.querySelector('#lobby');
  fill(lobby.querySelector('h2'), V.lobbyTitle(room));
  reconcile(lobby.querySelector('.players'), V.playerItems(room), 'ul');
  fill(lobby.querySelector('.actions'), V.lobbyActions(room));
}

function drawLog(node) {
  if (!S.log.length) {
    fill(node, '');
    return;
  }
  if (!node.querySelector('.log')) fill(node, `<section class="card log" aria-label="${esc(t('game.log'))}"><h2>${esc(t('game.log'))}</h2><ol></ol></section>`);
  const items = V.logShown(S.log)
    .map((entry) => ({ key: String(entry.version), line: V.logLine(entry.event, entry.name, entry.started) }))
    .filter((item) => item.line)
    .slice(0, 8)
    .map((item) => ({ key: item.key, html: `<li>${esc(item.line)}</li>` }));
  reconcile(node.querySelector('.log ol'), items, 'ol');
}

/** The chat panel: its messages added as elements with their text set as text (js/views.js chatItem). */
function drawChat(node, room) {
  const state = V.chatState(room);
  if (state === 'off') {
    fill(node, '');
    return;
  }
  if (!node.querySelector('#chat')) {
    fill(node, V.chatSkeleton());
    node.querySelector('#chat-panel').addEventListener('toggle', (event) => (S.chatOpen = event.target.open));
  }
  const list = node.querySelector('#chat-log');
  const wanted = new Set(S.chat.map((entry) => String(entry.version)));
  for (const child of [...list.children]) if (!wanted.has(child.dataset.version)) child.remove();
  const present = new Set([...list.children].map((child) => child.dataset.version));
  let added = false;
  S.chat.forEach((entry, i) => {
    if (present.has(String(entry.version))) return;
    list.insertBefore(V.chatItem(entry), list.children[i] || null);
    added = true;
  });
  if (added) list.scrollTop = list.scrollHeight;
  list.hidden = S.chat.length === 0;
  const note = { muted: 'chat.muted_you', spectator: 'chat.spectator' }[state] || (S.chat.length ? '' : 'chat.empty');
  const noteNode = node.querySelector('#chat-note');
  const noteText = note ? t(note) : '';
  if (noteNode.textContent !== noteText) noteNode.textContent = noteText;
  noteNode.hidden = !noteText;
  node.querySelector('#chat-form').hidden = state !== 'open';
  node.querySelector('#chat-reactions').hidden = state !== 'open';
}

function gameSkeleton() {
  return `<div class="game" id="game">
      <div class="side">
        <section class="card table">
          <p class="turn" id="turn-banner" tabindex="-1" aria-live="polite"></p>
          <div class="dice" id="dice" role="group"></div>
          <div class="slot" data-slot="controls"></div>
          <div class="slot" data-slot="progress"></div>
        </section>
        <div class="slot" data-slot="chances"></div>
        <div class="slot" data-slot="rolloff"></div>
        <section class="card"><ul class="players" id="game-players"></ul><div class="slot" data-slot="resign"></div></section>
      </div>
      <section class="card card-scores" id="card-scores" aria-labelledby="scorecard-caption"><div class="scroll"><table class="scorecard" id="scorecard"><caption id="scorecard-caption" class="sr-only">${esc(t('ps.scorecard'))}</caption><thead></thead><tbody></tbody></table></div></section>
    </div>`;
}

function drawGame(node, room) {
  if (!room) {
    fill(node, '');
    return;
  }
  if (!node.querySelector('#game')) fill(node, gameSkeleton());
  const game = room.game;
  const turn = game.turn;
  const mine = myTurn();
  attrs(node.querySelector('#game'), {
    'data-my-turn': String(mine),
    'data-turn-player': turn.player_id,
    'data-rolls-left': String(turn.rolls_left),
    'data-rolled': String(Boolean(turn.dice)),
    'data-kept': positions(turn.kept).join(','), // the server's, not a keep in flight
    'data-busy': String(S.busy),
  });
  const bannerNode = node.querySelector('#turn-banner');
  bannerNode.classList.toggle('mine', mine);
  fill(bannerNode, V.banner(game));
  drawDice(node.querySelector('#dice'), game);
  fill(node.querySelector('[data-slot="controls"]'), V.controls(game));
  fill(node.querySelector('[data-slot="progress"]'), V.upperProgress(game));
  fill(node.querySelector('[data-slot="chances"]'), V.chancesView(room));
  fill(node.querySelector('[data-slot="rolloff"]'), V.rolloff(game));
  reconcile(node.querySelector('#game-players'), V.playerItems(room), 'ul');
  fill(node.querySelector('[data-slot="resign"]'), V.resignButton(room));
  const { head, rows } = V.scorecardRows(room, game, mine);
  const sheet = node.querySelector('#scorecard');
  attrs(sheet, V.scorecardWidth(game.order.length));
  reconcile(sheet.querySelector('thead'), [{ key: 'head', html: head }], 'thead');
  reconcile(sheet.querySelector('tbody'), rows, 'tbody');
  const shown = `${game.number}:${turn.player_id}`;
  if (S.turnInView !== shown) {
    S.turnInView = shown;
    keepTurnInView(sheet);
  }
}

/** A scorecard wider than its box (many players on a phone) scrolls sideways under the box names'
 * column: as a turn starts, the column of the player whose turn it is is scrolled into view (the
 * player to move sees their options). Between turns it stays where the reader put it. */
function keepTurnInView(table) {
  const box = table.parentElement;
  const column = table.querySelector('thead th.current');
  const pinned = table.querySelector('thead th');
  if (!box || !column || !pinned || box.scrollWidth <= box.clientWidth + 1) return;
  const view = box.getBoundingClientRect();
  const cell = column.getBoundingClientRect();
  const held = pinned.getBoundingClientRect();
  const rtl = getComputedStyle(table).direction === 'rtl';
  const start = rtl ? view.left : held.right; // what the held column leaves in view
  const end = rtl ? held.left : view.right;
  if (cell.left < start) box.scrollBy({ left: cell.left - start });
  else if (cell.right > end) box.scrollBy({ left: cell.right - end });
}

/** The five dice, updated in place: a die keeps its element (and the focus) from roll to roll. */
function drawDice(group, game) {
  const turn = game.turn;
  const mine = myTurn();
  const canKeep = Boolean(mine && turn.dice && turn.rolls_left > 0);
  const kept = keptShown();
  attrs(group, { 'aria-label': t('game.dice') });
  for (let i = 0; i < 5; i++) {
    let die = group.children[i];
    if (!die) {
      die = document.createElement('button');
      die.type = 'button';
      die.id = `die-${i}`;
      die.dataset.action = 'toggle';
      die.dataset.pos = String(i);
      group.append(die);
    }
    const face = turn.dice ? turn.dice[i] : 0;
    const isKept = Boolean(face && kept[i]);
    fill(die, `${face ? V.dieSvg(face) : ''}<kbd class="key" aria-hidden="true">${i + 1}</kbd><span class="kept-label">${isKept ? esc(t('game.kept')) : ''}</span>`);
    die.className = `die${isKept ? ' kept' : ''}${face ? '' : ' blank'}`;
    attrs(die, {
      'aria-pressed': String(isKept),
      'aria-label': V.dieLabel(face, i + 1, isKept),
      'aria-keyshortcuts': String(i + 1),
      disabled: !canKeep,
    });
    if (S.rolled.has(i) && die.dataset.rolled !== String(S.rolledVersion)) {
      die.dataset.rolled = String(S.rolledVersion);
      F.tumble(die); // the roll animation, none under prefers-reduced-motion
    }
  }
}

// ---------------------------------------------------------------- win chances and analysis

async function fetchChances() {
  const code = S.code;
  const room = currentRoom();
  if (!code || !room || room.players.length < 2) return;
  try {
    const got = await chances(code);
    if (S.code !== code) return;
    if (!S.chances || got.number !== S.chances.number || got.version >= S.chances.version) S.chances = got;
    scheduleRender();
  } catch {
    // Chances are a nicety: without tables (503) or between games (409) there is no bar.
  }
}

async function fetchAnalysis(number) {
  const code = S.code;
  if (!code || number in S.analyses) return;
  S.analyses[number] = null;
  try {
    const got = await analysis(code, number);
    if (S.code !== code) return;
    S.analyses[number] = got;
  } catch (error) {
    S.analyses[number] = { error: error instanceof DicecupError ? error.code : 'generic' };
  }
  scheduleRender();
}

// ---------------------------------------------------------------- actions

const positions = (kept) => kept.flatMap((k, i) => (k ? [i] : []));

async function act(action) {
  if (!S.conn || S.busy) return;
  S.busy = true;
  render();
  try {
    await S.conn.act(action);
  } catch (error) {
    showError(error);
  } finally {
    S.busy = false;
    render();
    // focus that waited on the banner while the action was in flight goes back to the turn's controls
    const now = document.activeElement;
    if (!now || now === document.body || now.id === 'turn-banner') focusFirst(['#roll', '#game .score-option', '#turn-banner']);
  }
}

function toggle(pos) {
  const kept = [...keptShown()];
  kept[pos] = !kept[pos];
  S.pendingKept = kept;
  const seq = ++S.keepSeq;
  render();
  // Others see keeps as they happen; a refusal puts the server's back.
  S.conn
    .act({ type: 'keep', dice: positions(kept) })
    .catch((error) => showError(error))
    .finally(() => {
      if (seq === S.keepSeq) {
        S.pendingKept = null;
        render();
      }
    });
}

async function onClick(event) {
  const target = event.target.closest('[data-action]');
  if (!target || target.disabled || target.getAttribute('aria-disabled') === 'true') return;
  const action = target.dataset.action;
  const room = currentRoom();
  try {
    if (action === 'vs-computer') {
      // one click: a room with one bot, started (POST /api/rooms with bots and start), and into the game
      const typed = String(app.querySelector('#create-name')?.value || '').trim();
      const known = typed || localStorage.getItem('dicecup.name');
      const name = known || t('sr.default_name'); // nobody to tell apart from: a plain name is enough
      target.disabled = true;
      let created;
      try {
        created = await P.createRoom({
          ruleset: document.getElementById('vs-ruleset').value,
          name,
          max_players: 2,
          bots: [document.getElementById('vs-level').value],
          start: true,
        }, Boolean(known));
      } finally {
        target.disabled = false;
      }
      if (known) localStorage.setItem('dicecup.name', created.player.name);
      seats.set(created.room.code, { token: created.token, playerId: created.player.id, name: created.player.name });
      go(`r/${created.room.code}`);
    } else if (action === 'play-again') {
      target.disabled = true;
      await api.rematch(S.code, Number(target.dataset.game), S.seat.token);
    } else if (action === 'copy') {
      const link = V.inviteLink(room.code);
      if (await copyText(link)) flash(t('room.copied'));
      else {
        // nothing could be copied (plain HTTP, no permission): the link is selected for the player to copy
        const node = document.getElementById('room-link');
        if (node) {
          const range = document.createRange();
          range.selectNodeContents(node);
          getSelection().removeAllRanges();
          getSelection().addRange(range);
        }
        flash(t('ps.copy_manual'));
      }
    } else if (action === 'qr') {
      S.showQr = !S.showQr;
      render();
      document.getElementById('show-qr')?.focus();
    } else if (action === 'share') {
      await navigator.share({ title: t('room.title', { code: room.code }), url: V.inviteLink(room.code) }).catch(() => {});
    } else if (action === 'toggle') {
      // a keep goes out even while a roll's answer is on its way: the socket keeps them in order
      toggle(Number(target.dataset.pos));
    } else if (action === 'roll') {
      const turn = room.game.turn;
      const kept = keptShown();
      await act(turn.dice ? { type: 'roll', keep: positions(kept) } : { type: 'roll' });
    } else if (action === 'score') {
      const { box, points } = target.dataset;
      if (Number(points) === 0) {
        const ok = await ask(t('confirm.zero', { box: boxLabel(box) }), t('confirm.yes'), t('confirm.no'));
        if (!ok) return;
      }
      await act({ type: 'score', box });
    } else if (action === 'review') {
      S.review = Number(target.dataset.number);
      fetchAnalysis(S.review);
      render();
    } else if (action === 'hint') {
      S.hint = await api.hint(S.code, S.seat.token);
      render();
      document.getElementById('hint-panel')?.setAttribute('tabindex', '-1');
    } else if (action === 'react') {
      await api.chat(S.code, { reaction: target.dataset.reaction }, S.seat.token);
    } else if (action === 'mute') {
      await api.mute(S.code, target.dataset.player, target.dataset.muted === 'true', S.seat.token);
    } else if (action === 'add-bot') {
      await api.addBot(S.code, document.getElementById('bot-level').value, S.seat.token);
    } else if (action === 'start') {
      await api.start(S.code, S.seat.token);
    } else if (action === 'resume') {
      S.seat = seats.remembered(S.code);
      seats.set(S.code, S.seat);
      connect();
      render();
    } else if (action === 'watch') {
      R.watchInstead(S.code);
      S.seat = null;
      connect();
      render();
    } else if (action === 'notify') {
      await N.toggle(S.code, render);
    } else if (action === 'resign') {
      const ok = await ask(t('lc.resign_confirm'), t('lc.resign'), t('confirm.no'));
      if (ok) await api.leave(S.code, S.seat.playerId, S.seat.token);
    } else if (action === 'remove-away') {
      const name = playerName(target.dataset.player);
      const ok = await ask(t('lc.remove_confirm', { name }), t('lc.remove', { name }), t('confirm.no'));
      if (ok) await api.leave(S.code, target.dataset.player, S.seat.token);
    } else if (action === 'stop-looking') {
      const { code, seat } = S;
      go(''); // the room closed here first: its socket's end is not a refusal to tell
      seats.forget(code);
      await api.leave(code, seat.playerId, seat.token);
    } else if (action === 'leave') {
      await api.leave(S.code, S.seat.playerId, S.seat.token);
      seats.forget(S.code);
      S.seat = null;
      connect();
      render();
    }
  } catch (error) {
    showError(error instanceof DicecupError ? error : { code: 'generic' });
  }
}

async function onSubmit(event) {
  const form = event.target.closest('form[data-form]');
  if (!form) return;
  event.preventDefault();
  const submit = form.querySelector('button');
  if (submit) submit.disabled = true;
  try {
    if (form.dataset.form === 'create') await createRoom(form);
    else if (form.dataset.form === 'quickplay') await Q.play(form, app.querySelector('#create-ruleset').value, go); // the create form's rule set
    else if (form.dataset.form === 'chat') {
      const input = form.querySelector('#chat-input');
      // nothing to send (the server would refuse it with chat_empty): said here, no request
      if (!input.value.trim()) throw new DicecupError('chat_empty', 'empty message');
      await api.chat(S.code, { text: input.value }, S.seat.token);
      input.value = '';
      input.focus();
    } else if (form.dataset.form === 'open') go(`r/${String(new FormData(form).get('code')).trim().toUpperCase()}`);
    else if (form.dataset.form === 'join') {
      const name = String(new FormData(form).get('name')).trim();
      const joined = await P.join(S.code, name);
      localStorage.setItem('dicecup.name', joined.player.name); // after: the form drawn again would lose its message
      S.seat = { token: joined.token, playerId: joined.player.id, name: joined.player.name };
      seats.set(S.code, S.seat);
      connect();
      render();
    }
  } catch (error) {
    if (!fieldError(form, error)) showError(error);
  } finally {
    if (submit && submit.isConnected) submit.disabled = false;
  }
}

/** A refusal of one field (a name: name_empty, name_too_long, name_invalid, name_taken) said next to it. */
function fieldError(form, error) {
  const code = error && error.code;
  const input = form.querySelector('input[name="name"]');
  if (!input || !/^name_/.test(String(code)) || !has(`error.${code}`)) return false;
  let note = document.getElementById(`${input.id}-error`);
  if (!note) {
    note = document.createElement('p');
    note.id = `${input.id}-error`;
    note.className = 'field-error';
    note.setAttribute('role', 'alert');
    input.closest('label').after(note);
    input.addEventListener('input', () => {
      note.remove();
      input.removeAttribute('aria-invalid');
      input.removeAttribute('aria-describedby');
    }, { once: true });
  }
  note.textContent = t(`error.${code}`);
  input.setAttribute('aria-invalid', 'true');
  input.setAttribute('aria-describedby', note.id);
  input.focus();
  return true;
}

app.addEventListener('click', onClick);
app.addEventListener('submit', onSubmit);
document.addEventListener('keydown', (event) => {
  // R rolls, 1-5 keep or release a die: the whole turn works from the keyboard.
  if (!myTurn() || event.target.closest('input, select, textarea, dialog') || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 'r' || event.key === 'R') {
    event.preventDefault();
    document.getElementById('roll')?.click();
  } else if (/^[1-5]$/.test(event.key)) {
    event.preventDefault();
    document.getElementById(`die-${Number(event.key) - 1}`)?.click();
  }
});

// The turn clock's countdown, and an absent player's, tick between renders (only their text changes).
setInterval(() => {
  const clock = document.getElementById('turn-clock');
  if (clock && clock.dataset.deadline) {
    const text = V.clockText(clock.dataset.deadline);
    if (clock.textContent !== text) clock.textContent = text;
    clock.classList.toggle('urgent', Date.parse(clock.dataset.deadline) - Date.now() < 10000);
  }
  const absent = document.getElementById('absent-clock');
  if (absent) {
    const text = V.absentText(absent.dataset.deadline, absent.dataset.name);
    if (absent.textContent !== text) absent.textContent = text;
  }
}, 250);

// ---------------------------------------------------------------- start

function redraw() {
  mountLanguageSwitch(document.querySelector('.bar'));
  if (!storageWorks()) return showStorageDenied(app);
  F.mountMute(document.querySelector('.bar'));
  if (currentRoom()) {
    app.innerHTML = ''; // every part is drawn again in the new language
    setStatus(S.status);
    render();
  } else route();
}

document.addEventListener(LANGUAGE_EVENT, redraw);

async function main() {
  await loadCatalog();
  mountLanguageSwitch(document.querySelector('.bar'));
  if (!storageWorks()) return showStorageDenied(app); // site data blocked: say so, not a blank page
  F.mountMute(document.querySelector('.bar'));
  try {
    for (const rules of await rulesets(language())) S.rulesets[rules.name] = rules;
  } catch (error) {
    showError(error);
  }
  route();
  P.ensureProfile(); // a first visit makes this device's profile, silently
  if ('serviceWorker' in navigator) {
    // The app shell works offline and the client is installable (static/manifest.webmanifest).
    navigator.serviceWorker.register(appUrl('sw.js'), { scope: BASE.pathname }).catch(() => {});
  }
}

main();
