// Dicecup's web client: home, lobby, game and end screens over the REST API
// and the room's WebSocket. Every string comes from the message catalog.
import { api, ApiError, seats } from './api.js';
import { dieSvg } from './dice.js';
import { howToPlay } from './howto.js';
import { decimal, has, language, list, loadCatalog, n, plural, t } from './i18n.js';
import { LANGUAGE_EVENT, mountLanguageSwitch } from './lang.js';
import { Live } from './live.js';

const app = document.getElementById('app');
const statusLine = document.getElementById('status');
const toast = document.getElementById('toast');
const confirmDialog = document.getElementById('confirm');

const S = {
  rulesets: {},
  code: null,
  room: null,
  seat: null, // {token, playerId}
  live: null,
  status: 'offline',
  log: [],
  kept: [false, false, false, false, false],
  rolled: new Set(), // positions that just changed, for the roll animation
  busy: false,
  hint: null, // the last hint, shown until the dice change
  chances: null, // the win chances of the current game (GET /chances), refreshed after each scored box
  analyses: {}, // post-game analyses by game number (null while loading)
  review: null, // the game number whose analysis the end screen shows
};

// ---------------------------------------------------------------- helpers

const esc = (value) =>
  String(value).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

function showError(error) {
  const code = (error && error.code) || 'generic';
  toast.textContent = has(`error.${code}`) ? t(`error.${code}`) : (error && error.detail) || t('error.generic');
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (toast.hidden = true), 4000);
}

function flash(message) {
  toast.textContent = message;
  toast.hidden = false;
  clearTimeout(showError.timer);
  showError.timer = setTimeout(() => (toast.hidden = true), 2000);
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

const ruleset = () => S.rulesets[S.room.ruleset];
// The rule sets whose upper section earns a bonus at 63 (Yahtzee 35, Yatzy 50).
const UPPER_BONUS_RULESETS = ['yahtzee', 'yatzy'];
const playerName = (id) => {
  const player = S.room && S.room.players.find((p) => p.id === id);
  return player ? player.name : '?';
};
const boxLabel = (box) => {
  const key = `box.${S.room.ruleset}.${box}`;
  if (has(key)) return t(key);
  const known = ruleset() && ruleset().boxes.find((b) => b.id === box);
  return known ? known.label : box;
};
const me = () => S.seat && S.seat.playerId;
const myTurn = () => {
  const turn = S.room && S.room.game && S.room.game.turn;
  return Boolean(turn && me() && turn.player_id === me() && S.room.status === 'playing');
};

// ---------------------------------------------------------------- routing

function go(path) {
  history.pushState({}, '', path);
  route();
}

window.addEventListener('popstate', route);

function route() {
  const match = location.pathname.match(/^\/r\/([A-Za-z0-9]+)\/?$/);
  const rules = location.pathname.match(/^\/rules\/([a-z]+)\/?$/);
  if (match) openRoom(match[1].toUpperCase());
  else if (rules && S.rulesets[rules[1]]) {
    closeRoom();
    statusLine.textContent = '';
    app.innerHTML = howToPlay(S.rulesets[rules[1]]);
    document.title = t('howto.title', { ruleset: t(`ruleset.${rules[1]}`) });
  } else {
    closeRoom();
    renderHome();
  }
}

// ---------------------------------------------------------------- home

function renderHome() {
  document.title = t('app.title');
  statusLine.textContent = '';
  const names = Object.keys(S.rulesets);
  const options = names.map((name) => `<option value="${name}">${esc(t(`ruleset.${name}`))}</option>`).join('');
  const seatsOptions = [1, 2, 3, 4, 5, 6, 7, 8]
    .map((count) => `<option value="${count}" ${count === 2 ? 'selected' : ''}>${n(count)}</option>`)
    .join('');
  app.innerHTML = `
    <section class="card hero"><p>${esc(t('app.tagline'))}</p></section>
    <section class="card">
      <h1>${esc(t('home.create'))}</h1>
      <form data-form="create" class="stack">
        <label>${esc(t('home.name'))}<input name="name" id="create-name" required maxlength="32" autocomplete="nickname" value="${esc(localStorage.getItem('dicecup.name') || '')}"></label>
        <div class="row">
          <label>${esc(t('home.ruleset'))}<select name="ruleset" id="create-ruleset">${options}</select></label>
          <label>${esc(t('home.seats'))}<select name="max_players" id="create-seats">${seatsOptions}</select></label>
        </div>
        <fieldset class="yahtzee-only">
          <label>${esc(t('home.joker'))}<select name="joker" id="create-joker">
            <option value="forced">${esc(t('joker.forced'))}</option>
            <option value="free">${esc(t('joker.free'))}</option>
          </select></label>
          <label class="check"><input type="checkbox" name="upper_first" id="create-upper-first">${esc(t('home.upper_first'))}</label>
        </fieldset>
        <label class="check"><input type="checkbox" name="hints" id="create-hints" checked>${esc(t('home.hints'))}</label>
        <button class="primary" id="create-submit">${esc(t('home.create_submit'))}</button>
      </form>
    </section>
    <section class="card">
      <h2>${esc(t('home.join'))}</h2>
      <form data-form="open" class="row">
        <label>${esc(t('home.code'))}<input name="code" id="open-code" required maxlength="12" autocapitalize="characters" autocomplete="off" spellcheck="false"></label>
        <button id="open-submit">${esc(t('home.join_submit'))}</button>
      </form>
    </section>
    <section class="card">
      <h2>${esc(t('rules.title'))}</h2>
      ${names.map((name) => `<h3>${esc(t(`ruleset.${name}`))}</h3><p>${esc(t(`rules.${name}`))}</p><p><a href="/rules/${name}" data-link>${esc(t('howto.title', { ruleset: t(`ruleset.${name}`) }))}</a></p>`).join('')}
    </section>`;
  const select = document.getElementById('create-ruleset');
  const sync = () => (app.querySelector('.yahtzee-only').hidden = select.value !== 'yahtzee');
  select.addEventListener('change', sync);
  sync();
}

async function createRoom(form) {
  const data = new FormData(form);
  const name = String(data.get('name')).trim();
  const chosen = String(data.get('ruleset'));
  const options = { hints: data.get('hints') === 'on' };
  if (chosen === 'yahtzee') {
    options.joker = String(data.get('joker'));
    options.upper_first = data.get('upper_first') === 'on';
  }
  localStorage.setItem('dicecup.name', name);
  const created = await api.createRoom({ ruleset: chosen, name, options, max_players: Number(data.get('max_players')) });
  seats.set(created.room.code, { token: created.token, playerId: created.player.id, name });
  go(`/r/${created.room.code}`);
}

// ---------------------------------------------------------------- room

async function openRoom(code) {
  if (S.code === code && S.live) return;
  closeRoom();
  S.code = code;
  S.seat = seats.get(code);
  S.log = [];
  app.innerHTML = '';
  try {
    S.room = await api.room(code);
  } catch (error) {
    S.code = null;
    renderHome();
    showError(error);
    return;
  }
  connect();
  renderRoom();
  if (S.room.status === 'playing') fetchChances();
}

function closeRoom() {
  if (S.live) S.live.stop();
  S.live = null;
  S.code = null;
  S.room = null;
  S.chances = null;
  S.analyses = {};
  S.review = null;
}

function connect() {
  if (S.live) S.live.stop();
  S.live = new Live(S.code, S.seat ? S.seat.token : null, {
    status(status) {
      S.status = status;
      renderStatus();
    },
    welcome(room) {
      applyRoom(room);
    },
    event(event, room, gap) {
      logEvent(event);
      onEvent(event);
      if (event.type === 'scored' || event.type === 'game_started') fetchChances();
      if (room) applyRoom(room);
      else if (gap || !S.room || event.version > S.room.version) refreshRoom();
    },
    presence(playerId, connected) {
      const player = S.room && S.room.players.find((p) => p.id === playerId);
      if (player) {
        player.connected = connected;
        renderRoom();
      }
    },
    error(message) {
      showError(message);
    },
    fatal(code) {
      if (code === 4409 || code === 4429) {
        showError({ code: code === 4409 ? 'spectators_full' : 'rate_limited' });
        S.status = 'refused';
        renderStatus();
        return;
      }
      if ((code === 4401 || code === 4403) && S.seat) {
        // Our seat is gone (left, or removed by the host): watch instead.
        seats.forget(S.code);
        S.seat = null;
        showError({ code: 'unauthorized' });
        connect();
      } else {
        showError({ code: 'room_not_found' });
        go('/');
      }
    },
  });
  S.live.start();
}

async function refreshRoom() {
  try {
    applyRoom(await api.room(S.code));
  } catch (error) {
    showError(error);
  }
}

function applyRoom(room) {
  if (!room || (S.room && room.code !== S.room.code)) return;
  S.room = room;
  const turn = room.game && room.game.turn;
  if (!myTurn() || !turn || !turn.dice) S.kept = turn ? [...turn.kept] : [false, false, false, false, false];
  renderRoom();
}

function onEvent(event) {
  if (['rolled', 'kept', 'scored', 'turn_started'].includes(event.type)) S.hint = null;
  if (event.type === 'rolled') {
    S.rolled = new Set(event.data.kept.map((kept, i) => (kept ? null : i)).filter((i) => i !== null));
    S.kept = [...event.data.kept];
    setTimeout(() => {
      S.rolled = new Set();
      for (const die of app.querySelectorAll('.die.rolling')) die.classList.remove('rolling');
    }, 450);
  } else if (event.type === 'kept' && event.player_id !== me()) {
    S.kept = [...event.data.kept];
  } else if (event.type === 'turn_started') {
    S.kept = [false, false, false, false, false];
  }
}

function logEvent(event) {
  const name = playerName(event.player_id);
  const d = event.data;
  const started = d && d.player_id ? playerName(d.player_id) : name;
  const line = () => logLine(event, name, started);
  if (logLine(event, name, started)) S.log = [line, ...S.log].slice(0, 40);
}

function logLine(event, name, started) {
  const d = event.data;
  let line = null;
  switch (event.type) {
    case 'rolled':
      line = t('log.rolled', { name, dice: d.dice.map(n).join(' ') });
      break;
    case 'kept':
      line = plural('log.kept', d.kept.filter(Boolean).length, { name });
      break;
    case 'scored':
      line =
        d.yahtzee_bonus || d.upper_bonus
          ? t('log.scored_bonus', { name, points: d.points, box: S.room ? boxLabel(d.box) : d.box, bonus: d.yahtzee_bonus + d.upper_bonus })
          : t('log.scored', { name, points: d.points, box: S.room ? boxLabel(d.box) : d.box });
      break;
    case 'turn_started':
      line = t('log.turn', { name: started, round: d.round });
      break;
    case 'player_joined':
      line = t('log.joined', { name: d.player.name });
      break;
    case 'player_left':
      line = t('log.left', { name: d.player.name });
      break;
    case 'game_started':
      line = t('log.started', { number: d.number });
      break;
    case 'game_finished':
      line = t('log.finished');
      break;
    default:
      break;
  }
  return line;
}

function renderStatus() {
  const key = S.status === 'online' && !S.seat ? 'status.spectator' : `status.${S.status}`;
  statusLine.textContent = t(key);
  statusLine.dataset.state = S.status;
}

function renderRoom() {
  if (!S.room) return;
  const focused = document.activeElement && document.activeElement.id;
  const room = S.room;
  document.title = `${t('app.title')} · ${room.code}`;
  const parts = [roomHeader(room)];
  if (room.status === 'playing' && room.game) parts.push(gameView(room));
  else {
    if (room.status === 'finished' && room.game) parts.push(endView(room));
    parts.push(lobbyView(room));
  }
  if (S.log.length) {
    parts.push(`<section class="card log" aria-label="${esc(t('game.log'))}"><h2>${esc(t('game.log'))}</h2>
      <ol>${S.log.slice(0, 8).map((line) => `<li>${esc(line())}</li>`).join('')}</ol></section>`);
  }
  app.innerHTML = parts.join('');
  app.dataset.status = room.status;
  app.dataset.version = room.version;
  renderStatus();
  if (focused) {
    const again = document.getElementById(focused);
    if (again && !again.disabled) again.focus();
  }
}

function resumeOffer(room) {
  const remembered = !S.seat && seats.remembered(room.code);
  if (!remembered || !room.players.some((p) => p.id === remembered.playerId)) return '';
  return `<button class="primary" data-action="resume" id="resume-seat">${esc(t('room.continue_as', { name: remembered.name || '?' }))}</button>`;
}

function roomHeader(room) {
  const link = `${location.origin}/r/${room.code}`;
  return `<section class="card room-head">${resumeOffer(room)}
      <div><h1>${esc(t('room.title', { code: room.code }))}</h1>
      <p class="muted">${esc(t(`ruleset.${room.ruleset}`))}${room.game ? ` · ${esc(t('game.title', { number: room.game.number }))}` : ''}</p>
      <p><a href="/rules/${esc(room.ruleset)}" target="_blank" rel="noopener" id="rules-link">${esc(t('howto.title', { ruleset: t(`ruleset.${room.ruleset}`) }))}</a></p></div>
      <div class="share"><span class="muted">${esc(t('room.share'))}</span>
        <code id="room-link">${esc(link)}</code>
        <button data-action="copy" id="copy-link">${esc(t('room.copy_link'))}</button></div>
    </section>`;
}

function playersList(room) {
  return `<ul class="players">${room.players
    .map(
      (p) => `<li data-player="${esc(p.id)}">
        <span class="dot ${p.connected ? 'on' : ''}" title="${esc(t(p.connected ? 'room.online' : 'room.away'))}"></span>
        <span class="name">${esc(p.name)}</span>
        ${p.id === me() ? `<span class="tag">${esc(t('room.you'))}</span>` : ''}
        ${p.host ? `<span class="tag">${esc(t('room.host'))}</span>` : ''}
        ${p.bot ? `<span class="tag">${esc(t('room.bot'))}</span>` : ''}
      </li>`,
    )
    .join('')}</ul>`;
}

function lobbyView(room) {
  const isHost = me() && room.host_id === me();
  const full = room.players.length >= room.max_players;
  let actions = '';
  if (room.status === 'closed') {
    actions = `<p>${esc(t('room.closed'))}</p>`;
  } else if (!S.seat) {
    actions = full
      ? `<p>${esc(t('room.full'))}</p>`
      : `<form data-form="join" class="row">
          <label>${esc(t('home.name'))}<input name="name" id="join-name" required maxlength="32" value="${esc(localStorage.getItem('dicecup.name') || '')}"></label>
          <button class="primary" id="join-submit">${esc(t('room.join_submit'))}</button>
        </form><p class="muted">${esc(t('room.spectating'))}</p>`;
  } else if (isHost) {
    const label = room.status === 'finished' ? t('end.play_again') : t('room.start');
    const levels = ['optimal', 'strong', 'casual', 'beginner', 'greedy']
      .map((level) => `<option value="${level}">${esc(t(`bot.${level}`))}</option>`)
      .join('');
    const bots = full
      ? ''
      : `<div class="row"><label>${esc(t('room.bot_level'))}<select id="bot-level">${levels}</select></label>
          <button data-action="add-bot" id="add-bot">${esc(t('room.add_bot'))}</button></div>`;
    actions = `${bots}<button class="primary big" data-action="start" id="start-game">${esc(label)}</button>`;
  } else {
    actions = `<p>${esc(t(room.status === 'finished' ? 'end.waiting_host' : 'room.waiting_host'))}</p>`;
  }
  const leave = S.seat && room.status !== 'closed' ? `<button class="quiet" data-action="leave" id="leave-room">${esc(t('room.leave'))}</button>` : '';
  return `<section class="card lobby" id="lobby">
      <h2>${esc(t('room.players'))} <span class="muted">${esc(t('room.seats_taken', { count: room.players.length, max: room.max_players }))}</span></h2>
      ${playersList(room)}
      <div class="actions">${actions}${leave}</div>
    </section>`;
}

function diceView(game) {
  const turn = game.turn;
  const mine = myTurn();
  const canKeep = mine && turn.dice && turn.rolls_left > 0 && !S.busy;
  const kept = mine ? S.kept : turn.kept;
  const dice = (turn.dice || [0, 0, 0, 0, 0])
    .map((face, i) => {
      const label = face ? t(kept[i] ? 'game.die_kept' : 'game.die', { position: i + 1, face }) : '';
      return `<button class="die ${kept[i] ? 'kept' : ''} ${S.rolled.has(i) ? 'rolling' : ''} ${face ? '' : 'blank'}"
        id="die-${i}" data-action="toggle" data-pos="${i}" aria-pressed="${kept[i]}" aria-label="${esc(label)}"
        ${canKeep ? '' : 'disabled'}>${face ? dieSvg(face) : ''}<span class="kept-label">${kept[i] ? esc(t('game.kept')) : ''}</span></button>`;
    })
    .join('');
  let controls = '';
  if (mine) {
    const label = turn.rolls_left ? plural('game.roll_button', turn.rolls_left) : t('game.no_rolls');
    const hint = turn.dice ? t('game.pick_box') : t('game.roll_first');
    const hints = S.room.options.hints && turn.dice;
    controls = `<button class="primary big" id="roll" data-action="roll" ${turn.rolls_left && !S.busy ? '' : 'disabled'}>${esc(label)}</button>
      <p class="muted">${esc(hint)}</p>
      ${hints ? `<button class="quiet" data-action="hint" id="hint">${esc(t('game.hint'))}</button>` : ''}
      ${hints && S.hint ? hintView(S.hint) : ''}`;
  }
  return `<div class="dice" role="group" aria-label="${esc(t('game.roll'))}">${dice}</div>${controls}`;
}

function hintView(hint) {
  const best = hint.best;
  const dice = S.room.game.turn.dice;
  let line;
  if (best.type === 'score') {
    const box = hint.boxes.find((b) => b.box === best.box);
    line = t('hint.score', { points: box.points, box: boxLabel(best.box) });
  } else {
    line = best.dice.length ? t('hint.keep', { dice: best.dice.map((i) => n(dice[i])).join(' ') }) : t('hint.reroll_all');
  }
  const options = [
    ...hint.boxes.map((b) => ({ text: t('hint.score', { points: b.points, box: boxLabel(b.box) }), ev: b.ev })),
    ...hint.keeps.map((k) => ({ text: k.values.length ? t('hint.keep', { dice: k.values.map(n).join(' ') }) : t('hint.reroll_all'), ev: k.ev })),
  ]
    .sort((a, b) => b.ev - a.ev)
    .slice(0, 5);
  const ev = (value) => decimal(value, 1);
  return `<div class="hint" id="hint-panel" role="status"><p><strong>${esc(line)}</strong></p>
    <ol>${options.map((o) => `<li><span>${esc(o.text)}</span><span class="muted">${esc(t('hint.ev', { ev: ev(o.ev) }))}</span></li>`).join('')}</ol></div>`;
}

function rolloffView(game) {
  const rounds = game.rolloff
    .map(
      (round, r) => `<div class="rolloff-round">${r ? `<h3>${esc(t('game.rolloff_round', { round: r }))}</h3>` : ''}
      <ul>${round
        .map(
          (entry) => `<li><span class="name">${esc(playerName(entry.player_id))}</span>
          <span class="mini-dice">${entry.dice.map(dieSvg).join('')}</span><strong>${n(entry.total)}</strong></li>`,
        )
        .join('')}</ul></div>`,
    )
    .join('');
  const open = game.round === 1 && game.turn && game.turn.player_id === game.order[0] && !game.turn.dice;
  return `<details class="card rolloff" id="rolloff" ${open ? 'open' : ''}>
      <summary>${esc(t('game.rolloff_summary', { name: playerName(game.order[0]) }))}</summary>${rounds}</details>`;
}

function scorecard(room, game, interactive) {
  const rules = ruleset();
  const players = game.order.map((id) => ({ id, card: game.scorecards[id] }));
  const turn = game.turn;
  const scorable = interactive && turn && turn.dice ? turn.scorable : {};
  const head = players
    .map((p) => `<th scope="col" class="${turn && turn.player_id === p.id ? 'current' : ''} ${p.id === me() ? 'mine' : ''}">${esc(playerName(p.id))}</th>`)
    .join('');
  const cell = (p, box) => {
    const value = p.card.boxes[box];
    if (value !== null && value !== undefined) return `<td>${n(value)}</td>`;
    if (p.id === me() && box in scorable) {
      const points = scorable[box];
      return `<td><button class="score-option ${points ? '' : 'zero'}" id="score-${box}" data-action="score" data-box="${box}" data-points="${points}"
        aria-label="${esc(t('card.score_in', { points, box: boxLabel(box) }))}">${n(points)}</button></td>`;
    }
    return '<td class="open"></td>';
  };
  const row = (box) => `<tr><th scope="row">${esc(boxLabel(box))}</th>${players.map((p) => cell(p, box)).join('')}</tr>`;
  const sum = (label, pick, cls = '') =>
    `<tr class="sum ${cls}"><th scope="row">${esc(label)}</th>${players.map((p) => `<td>${n(pick(p.card))}</td>`).join('')}</tr>`;
  const upper = rules.boxes.filter((b) => b.section === 'upper').map((b) => b.id);
  const lower = rules.boxes.filter((b) => b.section === 'lower').map((b) => b.id);
  const yahtzee = room.ruleset === 'yahtzee';
  const upperBonus = UPPER_BONUS_RULESETS.includes(room.ruleset);
  // Scorecard order: Yacht lists its lower boxes first.
  const sections = rules.boxes[0].section === 'upper' ? ['upper', 'lower'] : ['lower', 'upper'];
  const body = sections
    .map((section) =>
      section === 'upper'
        ? upper.map(row).join('') + sum(t('card.upper_total'), (c) => c.upper_total) + (upperBonus ? sum(t('card.upper_bonus'), (c) => c.upper_bonus) : '')
        : lower.map(row).join('') + sum(t('card.lower_total'), (c) => c.lower_total) + (yahtzee ? sum(t('card.yahtzee_bonus'), (c) => c.yahtzee_bonus) : ''),
    )
    .join('');
  return `<div class="scroll"><table class="scorecard"><thead><tr><th scope="col">${esc(t('card.box'))}</th>${head}</tr></thead>
      <tbody>${body}${sum(t('card.total'), (c) => c.total, 'total')}</tbody></table></div>`;
}

function upperProgress(room, game) {
  if (!UPPER_BONUS_RULESETS.includes(room.ruleset) || !me() || !game.scorecards[me()]) return '';
  const card = game.scorecards[me()];
  const done = card.upper_bonus > 0;
  const pct = Math.min(100, Math.round((card.upper_total / 63) * 100));
  return `<div class="progress" id="upper-progress"><span>${esc(done ? t('game.upper_done') : t('game.upper_progress', { total: card.upper_total }))}</span>
      <progress max="63" value="${Math.min(63, card.upper_total)}" aria-valuetext="${pct}%"></progress></div>`;
}

function gameView(room) {
  const game = room.game;
  const turn = game.turn;
  const rules = ruleset();
  const banner = myTurn() ? t('game.your_turn') : t('game.turn_of', { name: playerName(turn.player_id) });
  return `<div class="game" id="game" data-my-turn="${myTurn()}" data-turn-player="${esc(turn.player_id)}"
      data-rolls-left="${turn.rolls_left}" data-rolled="${Boolean(turn.dice)}" data-busy="${S.busy}">
      <div class="side">
      <section class="card table">
        <p class="turn ${myTurn() ? 'mine' : ''}" id="turn-banner" aria-live="polite"><strong>${esc(banner)}</strong>
          <span class="muted">${esc(t('game.round', { round: game.round, rounds: rules.rounds }))}</span></p>
        ${diceView(game)}
        ${upperProgress(room, game)}
      </section>
      ${chancesView(room)}
      ${rolloffView(game)}
      <section class="card">${playersList(room)}</section>
      </div>
      <section class="card card-scores" aria-label="${esc(t('card.total'))}">${scorecard(room, game, myTurn() && !S.busy)}</section>
    </div>`;
}

function endView(room) {
  const game = room.game;
  const winners = game.winners.map(playerName);
  const title = winners.length > 1 ? t('end.winners', { names: list(winners) }) : t('end.winner', { names: winners[0] || '' });
  const standings = [...game.order]
    .sort((a, b) => game.scorecards[b].total - game.scorecards[a].total)
    .map(
      (id) => `<li data-player="${esc(id)}" data-total="${game.scorecards[id].total}" class="${game.winners.includes(id) ? 'winner' : ''}">
        <span class="name">${esc(playerName(id))}</span><strong>${n(game.scorecards[id].total)}</strong></li>`,
    )
    .join('');
  const players = room.players;
  const history = room.games.length
    ? `<h3>${esc(t('end.history'))}</h3><div class="scroll"><table class="history"><thead><tr><th></th>${players.map((p) => `<th scope="col">${esc(p.name)}</th>`).join('')}</tr></thead><tbody>
        ${room.games
          .map(
            (g) => `<tr><th scope="row">${esc(t('end.game', { number: g.number }))}
              <button class="quiet small" data-action="review" data-number="${g.number}" id="review-${g.number}">${esc(t('analysis.review'))}</button></th>${players
              .map((p) => `<td class="${g.winners.includes(p.id) ? 'winner' : ''}">${p.id in g.totals ? n(g.totals[p.id]) : '–'}</td>`)
              .join('')}</tr>`,
          )
          .join('')}
        <tr class="sum"><th scope="row">${esc(t('end.best'))}</th>${players
          .map((p) => `<td>${p.id in (room.best[room.ruleset] || {}) ? n(room.best[room.ruleset][p.id]) : '–'}</td>`)
          .join('')}</tr></tbody></table></div>`
    : '';
  return `<section class="card end" id="end">
      <h2>${esc(t('end.title', { number: game.number }))}</h2>
      <p class="winner-line" id="winner-line">${esc(title)}</p>
      <ol class="standings" id="final">${standings}</ol>
      ${scorecard(room, game, false)}
      ${history}
      ${analysisView(S.review || game.number)}
      <p class="muted small">${esc(t('end.fair', { seed: game.fairness.seed || '' }))}</p>
    </section>`;
}

// ---------------------------------------------------------------- win chances and analysis

const percent = (value) =>
  new Intl.NumberFormat(`${language()}-u-nu-latn`, { style: 'percent', maximumFractionDigits: 0 }).format(value);
const points1 = (value) =>
  new Intl.NumberFormat(`${language()}-u-nu-latn`, { maximumFractionDigits: 1, minimumFractionDigits: 1 }).format(value);

async function fetchChances() {
  const code = S.code;
  if (!code || !S.room || S.room.players.length < 2) return;
  try {
    const chances = await api.chances(code);
    if (S.code !== code) return;
    if (!S.chances || chances.number !== S.chances.number || chances.version >= S.chances.version) S.chances = chances;
    renderRoom();
  } catch {
    // Chances are a nicety: without tables (503) or between games (409) there is no bar.
  }
}

function chancesView(room) {
  const chances = S.chances;
  if (!chances || !room.game || chances.number !== room.game.number || room.players.length < 2) return '';
  const segments = chances.players
    .map((p, i) => {
      const label = t('chances.player', { name: playerName(p.player_id), percent: percent(p.chance) });
      return `<span class="segment seat-${i % 8}" style="inline-size: ${(p.chance * 100).toFixed(2)}%" title="${esc(label)}" data-player="${esc(p.player_id)}" data-chance="${p.chance}"></span>`;
    })
    .join('');
  const legend = chances.players
    .map((p, i) => `<li><span class="swatch seat-${i % 8}"></span>${esc(t('chances.player', { name: playerName(p.player_id), percent: percent(p.chance) }))}</li>`)
    .join('');
  return `<section class="card chances" id="chances" aria-label="${esc(t('chances.title'))}">
      <h2>${esc(t('chances.title'))}</h2>
      <div class="chance-bar" role="img" aria-label="${esc(chances.players.map((p) => t('chances.player', { name: playerName(p.player_id), percent: percent(p.chance) })).join(', '))}">${segments}</div>
      <ul class="chance-legend">${legend}</ul>
      <p class="muted small">${esc(t('chances.method', { rollouts: n(chances.rollouts) }))}</p>
    </section>`;
}

async function fetchAnalysis(number) {
  const code = S.code;
  if (!code || number in S.analyses) return;
  S.analyses[number] = null;
  try {
    const analysis = await api.analysis(code, number);
    if (S.code !== code) return;
    S.analyses[number] = analysis;
  } catch (error) {
    S.analyses[number] = { error: error.code || 'generic' };
  }
  renderRoom();
}

function choiceText(choice) {
  if (choice.type === 'score') return t('hint.score', { points: choice.points, box: boxLabel(choice.box) });
  return choice.values.length ? t('hint.keep', { dice: choice.values.map(n).join(' ') }) : t('hint.reroll_all');
}

function analysisView(number) {
  if (!(number in S.analyses)) {
    setTimeout(() => fetchAnalysis(number), 0);
    return '';
  }
  const analysis = S.analyses[number];
  const title = `<h3>${esc(t('analysis.title', { number }))}</h3>`;
  if (analysis === null) return `<section class="analysis" id="analysis">${title}<p class="muted">${esc(t('analysis.loading'))}</p></section>`;
  if (analysis.error) return `<section class="analysis" id="analysis">${title}<p class="muted">${esc(t(`error.${analysis.error}`))}</p></section>`;
  const seats = analysis.seats
    .map((seat) => {
      const worst = seat.worst.length
        ? `<ol class="worst">${seat.worst
            .map(
              (d) => `<li><span>${esc(t('analysis.decision', { round: d.round, roll: d.roll, dice: d.dice.map(n).join(' ') }))}</span>
                <span>${esc(t('analysis.chose', { choice: choiceText(d.choice) }))}</span>
                <span>${esc(t('analysis.best', { choice: choiceText(d.best) }))}</span>
                <strong>${esc(t('analysis.cost', { points: points1(d.loss) }))}</strong></li>`,
            )
            .join('')}</ol>`
        : `<p class="muted">${esc(t('analysis.perfect'))}</p>`;
      return `<li class="seat-analysis" data-player="${esc(seat.player_id)}" data-loss="${seat.total_loss}">
          <p><strong>${esc(seat.name)}</strong> · ${esc(t('analysis.accuracy', { percent: percent(seat.accuracy / 100) }))}
            · ${esc(t('analysis.loss', { points: points1(seat.total_loss) }))}</p>${worst}</li>`;
    })
    .join('');
  return `<section class="analysis" id="analysis" data-number="${number}">${title}
      <p class="muted small">${esc(t('analysis.about', { points: points1(analysis.optimal_expected) }))}</p>
      <ul class="seats">${seats}</ul></section>`;
}

// ---------------------------------------------------------------- actions

async function act(action) {
  if (!S.live) return;
  S.busy = true;
  renderRoom();
  try {
    await S.live.act(action);
  } catch (error) {
    showError(error);
    if (S.room.game && S.room.game.turn) S.kept = [...S.room.game.turn.kept];
  } finally {
    S.busy = false;
    renderRoom();
  }
}

async function onClick(event) {
  const target = event.target.closest('[data-action]');
  if (!target || target.disabled) return;
  const action = target.dataset.action;
  try {
    if (action === 'copy') {
      const link = `${location.origin}/r/${S.room.code}`;
      try {
        await navigator.clipboard.writeText(link);
      } catch {
        const range = document.createRange();
        range.selectNodeContents(document.getElementById('room-link'));
        getSelection().removeAllRanges();
        getSelection().addRange(range);
      }
      flash(t('room.copied'));
    } else if (action === 'toggle') {
      const pos = Number(target.dataset.pos);
      S.kept[pos] = !S.kept[pos];
      renderRoom();
      // Others see keeps as they happen; a failure puts the server's back.
      S.live.act({ type: 'keep', dice: S.kept.flatMap((k, i) => (k ? [i] : [])) }).catch((error) => {
        showError(error);
        S.kept = [...S.room.game.turn.kept];
        renderRoom();
      });
    } else if (action === 'roll') {
      const dice = S.room.game.turn.dice;
      await act(dice ? { type: 'roll', keep: S.kept.flatMap((k, i) => (k ? [i] : [])) } : { type: 'roll' });
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
      renderRoom();
    } else if (action === 'hint') {
      S.hint = await api.hint(S.code, S.seat.token);
      renderRoom();
    } else if (action === 'add-bot') {
      await api.addBot(S.code, document.getElementById('bot-level').value, S.seat.token);
    } else if (action === 'start') {
      await api.start(S.code, S.seat.token);
    } else if (action === 'resume') {
      S.seat = seats.remembered(S.code);
      seats.set(S.code, S.seat);
      connect();
      renderRoom();
    } else if (action === 'leave') {
      await api.leave(S.code, S.seat.playerId, S.seat.token);
      seats.forget(S.code);
      S.seat = null;
      connect();
      renderRoom();
    }
  } catch (error) {
    showError(error instanceof ApiError ? error : { code: 'generic' });
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
    else if (form.dataset.form === 'open') go(`/r/${String(new FormData(form).get('code')).trim().toUpperCase()}`);
    else if (form.dataset.form === 'join') {
      const name = String(new FormData(form).get('name')).trim();
      localStorage.setItem('dicecup.name', name);
      const joined = await api.join(S.code, name);
      S.seat = { token: joined.token, playerId: joined.player.id, name };
      seats.set(S.code, S.seat);
      connect();
    }
  } catch (error) {
    showError(error);
  } finally {
    if (submit && submit.isConnected) submit.disabled = false;
  }
}

app.addEventListener('click', onClick);
app.addEventListener('submit', onSubmit);
document.addEventListener('keydown', (event) => {
  // r rolls, 1-5 toggle dice: the whole turn works from the keyboard too.
  if (!myTurn() || event.target.closest('input, select, textarea, dialog') || event.ctrlKey || event.metaKey || event.altKey) return;
  if (event.key === 'r') document.getElementById('roll')?.click();
  else if (/^[1-5]$/.test(event.key)) document.getElementById(`die-${Number(event.key) - 1}`)?.click();
});

// ---------------------------------------------------------------- start

function redraw() {
  mountLanguageSwitch(document.querySelector('.bar'));
  if (S.room) renderRoom();
  else route();
}

document.addEventListener(LANGUAGE_EVENT, redraw);

async function main() {
  await loadCatalog();
  mountLanguageSwitch(document.querySelector('.bar'));
  try {
    for (const rules of await api.rulesets(language())) S.rulesets[rules.name] = rules;
  } catch (error) {
    showError(error);
  }
  route();
}

main();
