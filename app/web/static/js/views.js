// Views: each part of the room screen as HTML from the state, drawn only when
// it changed (js/dom.js). Nothing here knows the rules: boxes, sections,
// bonuses and bot levels come from GET /api/rulesets.
import { REACTIONS, appUrl, seats } from './api.js';
import { dieSvg } from './dice.js';
import { decimal, language, list, n, names, plural, t } from './i18n.js';
import { esc } from './dom.js';
import { control as notifyControl } from './notify.js';
import { seeking, waiting } from './quickplay.js';
import { reclaimed } from './rejoin.js';
import qrcode from '../vendor/qrcode-generator/qrcode.mjs';
import { S, boxLabel, me, mySeat, myTurn, newcomerLevel, playerName, room as currentRoom, ruleset, vsComputer } from './state.js';

const percent = (value) =>
  new Intl.NumberFormat(`${language()}-u-nu-latn`, { style: 'percent', maximumFractionDigits: 0 }).format(value);
const points1 = (value) => decimal(value, 1);

// ---------------------------------------------------------------- room head, players, lobby

function resumeOffer(room) {
  if (S.seat && reclaimed(room.code)) {
    // taken back by itself (js/rejoin.js): a friend in another tab of this browser may watch (and join) instead
    return `<p class="reclaimed"><button class="quiet small" data-action="watch" id="watch-instead">${esc(t('room.watch_instead', { name: S.seat.name || '?' }))}</button></p>`;
  }
  const remembered = !S.seat && seats.remembered(room.code);
  if (!remembered || !room.players.some((p) => p.id === remembered.playerId)) return '';
  return `<button class="primary" data-action="resume" id="resume-seat">${esc(t('room.continue_as', { name: remembered.name || '?' }))}</button>`;
}

/** The room's invite link: under DICECUP_PUBLIC_URL when the server has one (the address friends open). */
export function inviteLink(code) {
  const configured = document.querySelector('meta[name="dicecup-public-url"]')?.content;
  return configured ? new URL(`r/${code}`, configured).href : appUrl(`r/${code}`).href;
}

/** An address only this computer can open (a server started without DICECUP_PUBLIC_URL, opened at 127.0.0.1). */
function loopback(link) {
  const host = new URL(link).hostname;
  return host === 'localhost' || host.endsWith('.localhost') || /^127\./.test(host) || host === '[::1]';
}

export function roomHeader(room) {
  const link = inviteLink(room.code);
  return `<section class="card room-head">${resumeOffer(room)}
      <div><h1 id="room-title" tabindex="-1">${esc(t('room.title', { code: room.code }))}</h1>
      <p class="muted">${esc(t(`ruleset.${room.ruleset}`))}${room.game ? ` · ${esc(t('game.title', { number: room.game.number }))}` : ''}</p>
      <p><a href="rules/${esc(room.ruleset)}" target="_blank" rel="noopener" id="rules-link">${esc(t('howto.title', { ruleset: t(`ruleset.${room.ruleset}`) }))}</a></p>
      ${notifyControl(room)}</div>
      ${room.max_players === 1 || vsComputer(room) || seeking(room) ? '' : `<div class="share"><span class="muted">${esc(t('room.share'))}</span>
        <code id="room-link">${esc(link)}</code>
        ${room.host_id === me() && loopback(link) ? `<p class="muted small" id="local-link">${esc(t('room.local_link'))}</p>` : ''}
        <button data-action="copy" id="copy-link">${esc(t('room.copy_link'))}</button>
        ${typeof navigator.share === 'function' ? `<button data-action="share" id="share-link">${esc(t('ps.share'))}</button>` : ''}
        <button data-action="qr" id="show-qr" aria-expanded="${S.showQr}" aria-controls="invite-qr">${esc(t(S.showQr ? 'qr.hide' : 'qr.show'))}</button>
        ${S.showQr ? qrFigure(link) : ''}</div>`}
    </section>`;
}

export { vsComputer };

/** The invite link as a QR code (vendor/qrcode-generator, MIT): an SVG, dark modules on white
 * with the standard four-module quiet zone, error correction M, the smallest version that fits. */
export function qrSvg(text) {
  const qr = qrcode(0, 'M');
  qr.addData(text, 'Byte');
  qr.make();
  const size = qr.getModuleCount();
  const quiet = 4;
  let path = '';
  for (let r = 0; r < size; r++) {
    for (let c = 0; c < size; c++) if (qr.isDark(r, c)) path += `M${c + quiet} ${r + quiet}h1v1h-1z`;
  }
  const full = size + 2 * quiet;
  return `<svg class="qr" viewBox="0 0 ${full} ${full}" role="img" aria-label="${esc(t('qr.label'))}" shape-rendering="crispEdges" data-modules="${size}"><rect width="${full}" height="${full}" fill="#fff"/><path d="${path}" fill="#000"/></svg>`;
}

function qrFigure(link) {
  return `<figure class="qr-card" id="invite-qr">${qrSvg(link)}<figcaption class="muted">${esc(t('qr.caption'))}</figcaption></figure>`;
}

/** The host may remove an away seat during a game (it resigns: the autopilot finishes its card). */
const removable = (room, p) => room.status === 'playing' && me() && room.host_id === me() && p.away && !p.resigned && p.id !== me();

/** The host may mute or unmute another person's chat (while the room has chat). */
const mutable = (room, p) => me() && room.host_id === me() && p.id !== me() && !p.bot && room.options.chat !== false && room.status !== 'closed';

function muteButton(room, p) {
  if (!mutable(room, p)) return '';
  const key = p.muted ? 'chat.unmute' : 'chat.mute';
  return `<button class="quiet small" data-action="mute" data-player="${esc(p.id)}" data-muted="${!p.muted}" id="mute-${esc(p.id)}" aria-pressed="${Boolean(p.muted)}">${esc(t(key, { name: p.name }))}</button>`;
}

/** The players as keyed items (one <li> each). */
export function playerItems(room) {
  return room.players.map((p) => ({
    key: p.id,
    html: `<li data-player="${esc(p.id)}">
        <span class="dot ${p.connected && S.status === 'online' ? 'on' : ''}" title="${esc(t(p.connected && S.status === 'online' ? 'room.online' : 'room.away'))}"></span>
        <span class="name">${esc(p.name)}</span>
        ${p.id === me() ? `<span class="tag">${esc(t('room.you'))}</span>` : ''}
        ${p.host ? `<span class="tag">${esc(t('room.host'))}</span>` : ''}
        ${p.bot ? `<span class="tag">${esc(t('room.bot'))}</span>` : ''}
        ${p.away ? `<span class="tag away" data-away="true">${esc(t('lc.away'))}</span>` : ''}
        ${p.resigned ? `<span class="tag resigned" data-resigned="true">${esc(t('lc.resigned'))}</span>` : ''}
        ${p.muted ? `<span class="tag muted" data-muted="true">${esc(t('chat.muted_tag'))}</span>` : ''}
        ${muteButton(room, p)}
        ${removable(room, p) ? `<button class="quiet small" data-action="remove-away" data-player="${esc(p.id)}" id="remove-${esc(p.id)}">${esc(t('lc.remove', { name: p.name }))}</button>` : ''}
      </li>`,
  }));
}

export function lobbyActions(room) {
  const isHost = me() && room.host_id === me();
  const full = room.players.length >= room.max_players;
  let actions = '';
  if (room.status === 'closed') {
    actions = `<p>${esc(t('room.closed'))}</p>`;
  } else if (!S.seat) {
    actions = full
      ? `<p>${esc(t('room.full'))}</p>`
      : `<form data-form="join" class="row">
          <label>${esc(t('home.name'))}<input name="name" id="join-name" required maxlength="128" value="${esc(localStorage.getItem('dicecup.name') || '')}"></label>
          <button class="primary" id="join-submit">${esc(t('room.join_submit'))}</button>
        </form><p class="muted">${esc(t('room.spectating'))}</p>`;
  } else if (seeking(room)) {
    return waiting(room); // quick play: looking for players, not a private lobby (js/quickplay.js)
  } else if (isHost) {
    const label = t('room.start');
    const offered = ruleset()?.bot_levels || [];
    const levels = offered
      .map((level) => `<option value="${esc(level)}" ${level === newcomerLevel(offered) ? 'selected' : ''}>${esc(t(`bot.${level}`))}</option>`)
      .join('');
    const bots =
      full || !levels
        ? ''
        : `<div class="row"><label>${esc(t('room.bot_level'))}<select id="bot-level">${levels}</select></label>
          <button data-action="add-bot" id="add-bot">${esc(t('room.add_bot'))}</button></div>`;
    // after a game, play again and start now are on the end screen (againBar)
    actions = room.status === 'finished' ? bots : `${bots}<button class="primary big" data-action="start" id="start-game">${esc(label)}</button>`;
  } else if (room.status !== 'finished') {
    actions = `<p>${esc(t('room.waiting_host'))}</p>`;
  }
  const leave = S.seat && room.status !== 'closed' ? `<button class="quiet" data-action="leave" id="leave-room">${esc(t('room.leave'))}</button>` : '';
  return `${actions}${leave}`;
}

export function lobbyTitle(room) {
  return `${esc(t('room.players'))} <span class="muted">${esc(t('room.seats_taken', { count: room.players.length, max: room.max_players }))}</span>`;
}

// ---------------------------------------------------------------- the table

export function banner(game) {
  const rules = ruleset();
  const out = Boolean(mySeat()?.resigned); // resigned: the autopilot plays my seat, I have nothing to do
  let text = t('game.turn_of', { name: playerName(game.turn.player_id) });
  if (myTurn()) text = t('game.your_turn');
  else if (out && game.turn.player_id === me()) text = t('lc.autopilot_you');
  const note = out ? `<span class="resigned-note" id="resigned-note">${esc(t('lc.you_resigned'))}</span>` : '';
  return `<strong>${esc(text)}</strong> <span class="muted">${esc(t('game.round', { round: game.round, rounds: rules ? rules.rounds : game.round }))}</span>${turnClock(game)}${absentClock(game)}${note}`;
}

/** Untimed room, the person whose turn it is gone: when the autopilot takes their seat over (ticked by main.js). */
function absentClock(game) {
  if (!game.absent_deadline || game.turn.player_id === me()) return '';
  const name = playerName(game.turn.player_id);
  return `<span class="absent-clock" id="absent-clock" role="timer" data-deadline="${esc(game.absent_deadline)}" data-name="${esc(name)}">${esc(absentText(game.absent_deadline, name))}</span>`;
}

export function absentText(deadline, name) {
  return t('lc.absent_countdown', { name, time: remaining(deadline) });
}

/** The turn clock's countdown (ticked by main.js between renders), or who plays a turn nobody times. */
function turnClock(game) {
  const r = currentRoom();
  if (!r.options.turn_seconds) return '';
  if (!game.deadline) return ` <span class="clock autopilot" id="turn-clock" data-deadline="">${esc(t('lc.autopilot'))}</span>`;
  return ` <span class="clock" id="turn-clock" role="timer" data-deadline="${esc(game.deadline)}">${esc(clockText(game.deadline))}</span>`;
}

/** "1:05 left": the time to a deadline, as m:ss (h:mm:ss past an hour). */
export function clockText(deadline) {
  return t('lc.clock', { time: remaining(deadline) });
}

/** The time to a deadline as m:ss (h:mm:ss past an hour). */
function remaining(deadline) {
  const left = Math.max(0, Math.ceil((Date.parse(deadline) - Date.now()) / 1000));
  const pad = (value) => n(value).padStart(2, n(0));
  const h = Math.floor(left / 3600);
  const m = Math.floor((left % 3600) / 60);
  const s = left % 60;
  return h ? `${n(h)}:${pad(m)}:${pad(s)}` : `${n(m)}:${pad(s)}`;
}

/** One die: its label says its position, face and whether it is kept. */
export function dieLabel(face, position, kept) {
  return face ? t(kept ? 'game.die_kept' : 'game.die', { position, face }) : t('game.die', { position, face: '–' });
}

export { dieSvg };

/** The roll shortcut (a key's name, the same in every language: aria-keyshortcuts). */
const ROLL_KEY = 'R';

/** Resign (a seat in a game it has not resigned from). */
export function resignButton(room) {
  const mine = room.players.find((p) => p.id === me());
  if (!mine || mine.resigned || room.status !== 'playing') return '';
  return `<button class="quiet danger" data-action="resign" id="resign">${esc(t('lc.resign'))}</button>`;
}

export function controls(game) {
  if (!myTurn()) return '';
  const turn = game.turn;
  const label = turn.rolls_left ? plural('game.roll_button', turn.rolls_left) : t('game.no_rolls');
  const hint = turn.dice ? t('game.pick_box') : t('game.roll_first');
  const tip = turn.dice ? t(turn.rolls_left ? 'game.tip_keep' : 'game.tip_pick') : ''; // a phone's one short line
  const hints = currentRoom().options.hints && turn.dice;
  return `<div class="turn-actions"><button class="primary big" id="roll" data-action="roll" aria-keyshortcuts="R" ${turn.rolls_left ? '' : 'disabled'} ${S.busy ? 'aria-disabled="true"' : ''}>${esc(label)} <kbd class="key" aria-hidden="true">${ROLL_KEY}</kbd></button>
      ${hints ? `<button class="quiet" data-action="hint" id="hint">${esc(t('game.hint'))}</button>` : ''}</div>
      <p class="muted turn-help">${esc(hint)}</p>${tip ? `<p class="muted turn-tip" id="turn-tip">${esc(tip)}</p>` : ''}
      <p class="muted small keys" id="keys-help">${esc(t('game.keys'))}</p>
      ${hints && S.hint ? hintView(S.hint, turn) : ''}`;
}

function hintView(hint, turn) {
  const best = hint.best;
  let line;
  if (best.type === 'score') {
    const box = hint.boxes.find((b) => b.box === best.box);
    line = t('hint.score', { points: box.points, box: boxLabel(best.box) });
  } else {
    line = best.dice.length ? t('hint.keep', { dice: best.dice.map((i) => n(turn.dice[i])).join(' ') }) : t('hint.reroll_all');
  }
  const options = [
    ...hint.boxes.map((b) => ({ text: t('hint.score', { points: b.points, box: boxLabel(b.box) }), ev: b.ev })),
    ...hint.keeps.map((k) => ({ text: k.values.length ? t('hint.keep', { dice: k.values.map(n).join(' ') }) : t('hint.reroll_all'), ev: k.ev })),
  ]
    .sort((a, b) => b.ev - a.ev)
    .slice(0, 5);
  return `<div class="hint" id="hint-panel" role="status"><p><strong>${esc(line)}</strong></p>
    <ol>${options.map((o) => `<li><span>${esc(o.text)}</span><span class="muted">${esc(t('hint.ev', { ev: points1(o.ev) }))}</span></li>`).join('')}</ol></div>`;
}

export function upperProgress(game) {
  const bonus = ruleset()?.upper_bonus;
  if (!bonus || !me() || !game.scorecards[me()]) return '';
  const card = game.scorecards[me()];
  const done = card.upper_bonus > 0;
  const pct = Math.min(100, Math.round((card.upper_total / bonus.threshold) * 100));
  const text = done ? t('game.upper_done') : t('game.upper_progress', { total: card.upper_total, threshold: bonus.threshold });
  return `<div class="progress" id="upper-progress"><span id="upper-progress-text">${esc(text)}</span>
      <progress max="${bonus.threshold}" value="${Math.min(bonus.threshold, card.upper_total)}" aria-labelledby="upper-progress-text" aria-valuetext="${pct}%"></progress></div>`;
}

export function rolloff(game) {
  if (game.order.length < 2) return ''; // a solo game has nobody to roll off against
  const rounds = game.rolloff
    .map(
      (round, r) => `<div class="rolloff-round">${r ? `<h3>${esc(t('game.rolloff_round', { round: r }))}</h3>` : ''}
      <ul>${round
        .map(
          (entry) => `<li><span class="name">${esc(playerName(entry.player_id))}</span>
          <span class="mini-dice" aria-label="${esc(entry.dice.map(n).join(' '))}">${entry.dice.map(dieSvg).join('')}</span><strong>${n(entry.total)}</strong></li>`,
        )
        .join('')}</ul></div>`,
    )
    .join('');
  const open = game.round === 1 && game.turn && game.turn.player_id === game.order[0] && !game.turn.dice;
  return `<details class="card rolloff" id="rolloff" ${open ? 'open' : ''}>
      <summary>${esc(t('game.rolloff_summary', { name: playerName(game.order[0]) }))}</summary>${rounds}</details>`;
}

// ---------------------------------------------------------------- scorecard

/** The scorecard's head row and body rows as keyed items (a row is redrawn only when it changed). */
export function scorecardRows(room, game, interactive) {
  const rules = ruleset();
  const players = game.order.map((id) => ({ id, card: game.scorecards[id] }));
  const turn = game.turn;
  const scorable = interactive && turn && turn.dice ? turn.scorable : {};
  const head = `<tr><th scope="col">${esc(t('card.box'))}</th>${players
    .map((p) => `<th scope="col" class="${turn && turn.player_id === p.id ? 'current' : ''} ${p.id === me() ? 'mine' : ''}" title="${esc(playerName(p.id))}">${esc(playerName(p.id))}</th>`)
    .join('')}</tr>`;
  const cell = (p, box) => {
    const value = p.card.boxes[box];
    if (value !== null && value !== undefined) return `<td>${n(value)}</td>`;
    if (p.id === me() && box in scorable) {
      const points = scorable[box];
      return `<td><button class="score-option ${points ? '' : 'zero'}" id="score-${esc(box)}" data-action="score" data-box="${esc(box)}" data-points="${points}"
        aria-label="${esc(t('card.score_in', { points, box: boxLabel(box) }))}">${n(points)}</button></td>`;
    }
    return '<td class="open"></td>';
  };
  const rows = [];
  const sum = (key, label, pick, cls = '') =>
    rows.push({ key, html: `<tr class="sum ${cls}"><th scope="row">${esc(label)}</th>${players.map((p) => `<td>${n(pick(p.card))}</td>`).join('')}</tr>` });
  const sections = rules.sections ? rules.sections.map((s) => s.id) : [...new Set(rules.boxes.map((b) => b.section))];
  for (const section of sections) {
    for (const box of rules.boxes.filter((b) => b.section === section)) {
      rows.push({ key: `box-${box.id}`, html: `<tr data-box="${esc(box.id)}"><th scope="row">${esc(boxLabel(box.id))}</th>${players.map((p) => cell(p, box.id)).join('')}</tr>` });
    }
    if (section === 'upper') {
      sum('upper-total', t('card.upper_total'), (c) => c.upper_total);
      if (rules.upper_bonus) sum('upper-bonus', t('card.upper_bonus', { threshold: rules.upper_bonus.threshold }), (c) => c.upper_bonus);
    } else {
      sum('lower-total', t('card.lower_total'), (c) => c.lower_total);
      if (rules.yahtzee_bonus) sum('yahtzee-bonus', t('card.yahtzee_bonus'), (c) => c.yahtzee_bonus);
    }
  }
  sum('total', t('card.total'), (c) => c.total, 'total');
  return { head, rows };
}

/** The least width (rem) of a table with a column per player beside a held column (the scorecard,
 * the score pad): up to four players share the box's width, as a phone's is; more get `each` rem
 * apiece beside the held column's `held`, and the table scrolls sideways in its box. 0: none. */
const sidewaysWidth = (players, held, each) => (players > 4 ? held + each * players : 0);

/** The scorecard's least width, as attributes of its table: more than four players get 4.25rem
 * each beside the box names' column (8rem), names wrapping at their spaces, with the box names
 * held in place (js/main.js keepTurnInView brings the player whose turn it is into view). */
export function scorecardWidth(players) {
  const least = sidewaysWidth(players, 8, 4.25);
  return { 'data-wide': least > 0, style: least ? `--sheet-min: ${least}rem` : null };
}

/** A whole scorecard as HTML (the end screen's, drawn once per game). */
export function scorecardHtml(room, game) {
  const { head, rows } = scorecardRows(room, game, false);
  const wide = scorecardWidth(game.order.length);
  return `<div class="scroll"><table class="scorecard" ${wide['data-wide'] ? `data-wide style="${wide.style}"` : ''}><thead>${head}</thead><tbody>${rows.map((r) => r.html).join('')}</tbody></table></div>`;
}

// ---------------------------------------------------------------- win chances

export function chancesView(room) {
  const chances = S.chances;
  if (!chances || !room.game || chances.number !== room.game.number || room.players.length < 2) return '';
  const label = (p) => t('chances.player', { name: playerName(p.player_id), percent: percent(p.chance) });
  const segments = chances.players
    .map((p, i) => `<span class="segment seat-${i % 8}" style="inline-size: ${(p.chance * 100).toFixed(2)}%" title="${esc(label(p))}" data-player="${esc(p.player_id)}" data-chance="${p.chance}"></span>`)
    .join('');
  const legend = chances.players.map((p, i) => `<li><span class="swatch seat-${i % 8}"></span>${esc(label(p))}</li>`).join('');
  return `<section class="card chances" id="chances" aria-label="${esc(t('chances.title'))}">
      <h2>${esc(t('chances.title'))}</h2>
      <div class="chance-bar" role="img" aria-label="${esc(chances.players.map(label).join(', '))}">${segments}</div>
      <ul class="chance-legend">${legend}</ul>
      <p class="muted small">${esc(chances.method === 'monte_carlo' ? t('chances.method', { rollouts: n(chances.rollouts) }) : t('chances.method_estimate'))}</p>
    </section>`;
}

// ---------------------------------------------------------------- the end screen and its analysis

/** Who won, said to whoever looks: "You win!", "The computer wins", a solo game's score. */
export function winnerLine(room, game) {
  const mine = me() && game.order.includes(me()) ? me() : null;
  if (game.order.length === 1) {
    const total = game.scorecards[game.order[0]].total;
    return mine ? t('sr.solo_you', { points: total }) : t('sr.solo', { name: playerName(game.order[0]), points: total });
  }
  const bot = (id) => Boolean(room.players.find((p) => p.id === id)?.bot);
  if (game.ended === 'resigned') {
    // everyone else resigned: the game ended at once, whatever the totals
    return mine && game.winners.includes(mine) ? t('end.won_resigned_you') : t('end.won_resigned', { names: list(game.winners.map(playerName)) });
  }
  if (mine && game.winners.includes(mine)) {
    const others = game.winners.filter((id) => id !== mine).map(playerName);
    return others.length ? t('sr.you_share', { names: list(others) }) : t('sr.you_win');
  }
  if (mine && game.winners.length && game.winners.every(bot)) return t('sr.computer_wins');
  const winners = game.winners.map(playerName);
  return winners.length > 1 ? t('end.winners', { names: list(winners) }) : t('end.winner', { names: winners[0] || '' });
}

/** Play again, offered to every seat: accept (or, accepted, who is still waited for); the host may start now. */
export function againBar(room) {
  const rematch = room.rematch;
  const seat = room.players.find((p) => p.id === me());
  if (!rematch || !seat) return '';
  const ready = rematch.ready.filter((id) => id !== me() && !room.players.find((p) => p.id === id)?.bot);
  const accepted = rematch.ready.includes(me());
  const othersWaited = rematch.waiting.some((id) => id !== me());
  const parts = [];
  if (!accepted) parts.push(`<button class="primary big" data-action="play-again" data-game="${rematch.game}" id="play-again">${esc(t('end.play_again'))}</button>`);
  if (room.host_id === me() && othersWaited) parts.push(`<button data-action="start" id="start-now">${esc(t('sr.start_now'))}</button>`);
  const lines = [];
  if (ready.length) lines.push(t('sr.ready', { names: list(ready.map(playerName)) }));
  if (accepted && rematch.waiting.length) lines.push(names('sr.waiting', rematch.waiting.map(playerName)));
  return `<div class="again" id="again" data-ready="${esc(rematch.ready.join(','))}" data-waiting="${esc(rematch.waiting.join(','))}">
      ${parts.length ? `<div class="again-actions">${parts.join('')}</div>` : ''}
      ${lines.map((line) => `<p class="again-status">${esc(line)}</p>`).join('')}</div>`;
}

/** The score pad, as on paper: a column per player (in the scorecard's order), a line per game of the room (Game #1 ... #N, each
 * with its Review button) and the series total last. A long series grows downwards; only a room of
 * many players can be wider than a phone, and then the pad scrolls sideways in its box and says so
 * (more than four: 4.5rem each beside the games' column, 6rem). */
export function scorePad(room, reviewed) {
  if (!room.games.length) return '';
  const games = room.games;
  // the columns in the scorecard's order (the game on screen's turn order), who left after them
  const order = room.game ? room.game.order : [];
  const place = (line) => (order.includes(line.player_id) ? order.indexOf(line.player_id) : order.length);
  const players = [...room.series].sort((a, b) => place(a) - place(b));
  const head = `<tr><td class="pad-corner"></td>${players
    .map((line) => {
      const name = line.seated ? playerName(line.player_id) : line.name || '?';
      return `<th scope="col" data-player="${esc(line.player_id)}" class="${line.player_id === me() ? 'mine' : ''}">${esc(name)}${line.seated ? '' : ` <span class="muted small">${esc(t('sr.left'))}</span>`}</th>`;
    })
    .join('')}</tr>`;
  const rows = games
    .map((g) => {
      const gaveUp = new Set(g.resigned || []);
      const cells = players
        .map((line) => {
          const id = line.player_id;
          const out = gaveUp.has(id) ? ` <span class="pad-resigned" title="${esc(t('lc.resigned'))}">${esc(t('lc.resigned'))}</span>` : '';
          return `<td data-player="${esc(id)}" data-resigned="${gaveUp.has(id)}" class="${g.winners.includes(id) ? 'winner' : ''}">${id in g.totals ? n(g.totals[id]) : '–'}${out}</td>`;
        })
        .join('');
      const early = g.ended === 'resigned' ? ` <span class="muted small pad-early">${esc(t('sr.ended_early'))}</span>` : '';
      return `<tr data-game="${g.number}" data-ended="${esc(g.ended || 'completed')}" class="${reviewed === g.number ? 'reviewed' : ''}"><th scope="row" class="pad-game"><span>${esc(t('end.game', { number: g.number }))}${early}</span>
        <button class="quiet small" data-action="review" data-number="${g.number}" id="review-${g.number}" aria-pressed="${reviewed === g.number}">${esc(t('analysis.review'))}</button></th>${cells}</tr>`;
    })
    .join('');
  const totals = players.map((line) => `<td data-player="${esc(line.player_id)}" data-total="${line.total}">${n(line.total)}</td>`).join('');
  return `<section class="score-pad" id="score-pad" aria-labelledby="score-pad-title">
      <h3 id="score-pad-title">${esc(t('sr.pad'))}</h3>
      <div class="pad-scroll" id="pad-scroll" tabindex="0" role="region" aria-labelledby="score-pad-title">
        <table class="pad" style="--pad-min: ${sidewaysWidth(players.length, 6, 4.5)}rem"><thead>${head}</thead><tbody>${rows}
          <tr class="pad-total"><th scope="row" class="pad-game">${esc(t('sr.series_total'))}</th>${totals}</tr></tbody></table></div>
      <p class="muted small scroll-hint" id="pad-hint" hidden>${esc(t('sr.scroll_hint'))}</p></section>`;
}

/** Who resigned from `game`: the room's record of it once it is over (its seats may have left since). */
function resignedFrom(room, game) {
  const line = room.games.find((g) => g.number === game.number);
  return line && line.resigned ? line.resigned : room.players.filter((p) => p.resigned).map((p) => p.id);
}

/** The end of a game, as [part, html] pairs in the order they are shown. */
export function endParts(room) {
  const game = room.game;
  // hints used, on the final scores: in a room that allows them, or if anyone used one
  const hintsOf = (id) => (game.hints && game.hints[id]) || 0;
  const showHints = room.options.hints || game.order.some((id) => hintsOf(id) > 0);
  const resigned = new Set(resignedFrom(room, game));
  // as the results place them: the winners, everyone who played on by total, then who resigned
  const group = (id) => (game.winners.includes(id) ? 0 : resigned.has(id) ? 2 : 1);
  const standings = [...game.order]
    .sort((a, b) => group(a) - group(b) || game.scorecards[b].total - game.scorecards[a].total)
    .map(
      (id) => `<li data-player="${esc(id)}" data-total="${game.scorecards[id].total}" data-hints="${hintsOf(id)}" data-resigned="${resigned.has(id)}" class="${game.winners.includes(id) ? 'winner' : ''}">
        <span class="name">${esc(playerName(id))}</span>${resigned.has(id) ? `<span class="tag resigned">${esc(t('lc.resigned'))}</span>` : ''}${showHints ? `<span class="muted small hints-used">${esc(t('end.hints', { count: hintsOf(id) }))}</span>` : ''}<strong>${n(game.scorecards[id].total)}</strong></li>`,
    )
    .join('');
  // the parts, each drawn on its own (js/main.js drawEnd): an analysis arriving or a player getting
  // ready to play again redraws its part only, not the score pad a reader has scrolled sideways
  const number = S.review || game.number;
  return [
    ['title', `<h2 id="end-title" tabindex="-1">${esc(t('end.title', { number: game.number }))}</h2>
      <p class="winner-line" id="winner-line">${esc(winnerLine(room, game))}</p>`],
    ['again', againBar(room)],
    ['standings', `<ol class="standings" id="final">${standings}</ol>`],
    ['pad', scorePad(room, number)],
    ['scorecard', scorecardHtml(room, game)],
    ['analysis', analysisView(number)],
    ['fair', `<p class="muted small">${esc(t('end.fair', { seed: game.fairness.seed || '' }))}</p>`],
  ];
}

function choiceText(choice) {
  if (choice.type === 'score') return t('hint.score', { points: choice.points, box: boxLabel(choice.box) });
  return choice.values.length ? t('hint.keep', { dice: choice.values.map(n).join(' ') }) : t('hint.reroll_all');
}

function analysisView(number) {
  if (!(number in S.analyses)) return '';
  const analysis = S.analyses[number];
  const title = `<h3>${esc(t('analysis.title', { number }))}</h3>`;
  if (analysis === null) return `<section class="analysis" id="analysis" aria-busy="true">${title}<p class="muted">${esc(t('analysis.loading'))}</p></section>`;
  if (analysis.error) return `<section class="analysis" id="analysis">${title}<p class="muted">${esc(t(`error.${analysis.error}`))}</p></section>`;
  const seatsHtml = analysis.seats
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
          <p><strong><bdi>${esc(seat.name)}</bdi></strong>${seat.resigned ? ` <span class="tag resigned">${esc(t('lc.resigned'))}</span>` : ''} · ${esc(t('analysis.accuracy', { percent: percent(seat.accuracy / 100) }))}
            · ${esc(t('analysis.loss', { points: points1(seat.total_loss) }))}</p>${worst}</li>`;
    })
    .join('');
  return `<section class="analysis" id="analysis" data-number="${number}">${title}
      <p class="muted small">${esc(t('analysis.about', { points: points1(analysis.optimal_expected) }))}</p>
      <ul class="seats">${seatsHtml}</ul></section>`;
}

// ---------------------------------------------------------------- the log

/** The log's entries worth a line: of a run of keeps by one player (a die tapped, then another),
 * only the last, which says what they kept before their roll or score. */
export function logShown(log) {
  const newer = (i) => log[i - 1]?.event; // newest first
  return log.filter((entry, i) => !(entry.event.type === 'kept' && newer(i)?.type === 'kept' && newer(i).player_id === entry.event.player_id));
}

/** A log line; `name` and `started` are the names as they were when the event came (players may leave). */
export function logLine(event, name, started) {
  const d = event.data;
  switch (event.type) {
    case 'rolled':
      return t('log.rolled', { name, dice: d.dice.map(n).join(' ') });
    case 'kept':
      return plural('log.kept', d.kept.filter(Boolean).length, { name });
    case 'scored':
      return d.yahtzee_bonus || d.upper_bonus
        ? t('log.scored_bonus', { name, points: d.points, box: boxLabel(d.box), bonus: d.yahtzee_bonus + d.upper_bonus })
        : t('log.scored', { name, points: d.points, box: boxLabel(d.box) });
    case 'turn_started':
      return t('log.turn', { name: started, round: d.round });
    case 'player_joined':
      return t('log.joined', { name: d.player.name });
    case 'player_left':
      return t('log.left', { name: d.player.name });
    case 'game_started':
      return t('log.started', { number: d.number });
    case 'game_finished':
      return t('log.finished');
    case 'turn_timed_out':
      return t('lc.log_timed_out', { name });
    case 'player_absent':
      return t('lc.log_absent', { name });
    case 'player_away':
      return t('lc.log_away', { name });
    case 'player_back':
      return t('lc.log_back', { name });
    case 'player_resigned':
      return t('lc.log_resigned', { name });
    case 'hint_used':
      return t('log.hint_used', { name });
    case 'player_muted':
      return t('chat.log_muted', { name: started });
    case 'player_unmuted':
      return t('chat.log_unmuted', { name: started });
    case 'rematch_accepted':
      return t('sr.log_rematch', { name });
    default:
      return null;
  }
}

// ---------------------------------------------------------------- chat

/** What this tab may do in the chat: 'off' (the room has none), 'spectator', 'muted' or 'open'. */
export function chatState(room) {
  if (room.options.chat === false || vsComputer(room)) return 'off'; // nobody to talk to but a bot
  const mine = S.seat && room.players.find((p) => p.id === me());
  if (!mine) return 'spectator';
  return mine.muted ? 'muted' : 'open';
}

/** The chat panel, drawn once per room: only our own strings here (messages are added as text by chatItem). */
export function chatSkeleton() {
  const reactions = REACTIONS.map(
    (reaction, i) =>
      `<button type="button" class="reaction" data-action="react" data-reaction="${esc(reaction)}" id="react-${i}" aria-label="${esc(t('chat.react', { reaction }))}">${esc(reaction)}</button>`,
  ).join('');
  return `<section class="card chat" id="chat">
      <details id="chat-panel"${S.chatOpen ? ' open' : ''}>
        <summary id="chat-title">${esc(t('chat.title'))}</summary>
        <ol class="chat-log" id="chat-log" aria-labelledby="chat-title"></ol>
        <p class="muted small" id="chat-note"></p>
        <div class="reactions" role="group" aria-label="${esc(t('chat.reactions'))}" id="chat-reactions">${reactions}</div>
        <form data-form="chat" class="row chat-form" id="chat-form">
          <label class="grow"><span class="sr-only">${esc(t('chat.message'))}</span><input name="text" id="chat-input" maxlength="400" autocomplete="off" enterkeyhint="send" placeholder="${esc(t('chat.placeholder'))}"></label>
          <button id="chat-send">${esc(t('chat.send'))}</button>
        </form>
      </details>
    </section>`;
}

/** One chat message or reaction as an element, its text set as text: what people write is never markup. */
export function chatItem(entry) {
  const { event, name } = entry;
  const item = document.createElement('li');
  item.dataset.version = String(event.version);
  item.dataset.player = event.player_id || '';
  if (event.player_id === me()) item.className = 'mine';
  const who = document.createElement('span');
  who.className = 'who';
  who.textContent = name;
  const what = document.createElement('span');
  what.className = 'what';
  if (event.data.reaction !== undefined) {
    what.classList.add('reaction');
    what.textContent = event.data.reaction;
  } else {
    what.textContent = event.data.text;
  }
  item.append(who, what);
  return item;
}

/** What the polite live region says about a chat event from someone else. */
export function chatAnnouncement(event, name) {
  if (event.data.reaction !== undefined) return t('chat.reacted', { name, reaction: event.data.reaction });
  return t('chat.said', { name, text: event.data.text });
}
