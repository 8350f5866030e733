// The replay page, /r/{code}/games/{n}: a game's events (GET
// /api/rooms/{code}/events) stepped through move by move (buttons, the arrow
// keys, Home/End, space for autoplay), and its fair dice checked in the
// browser (js/fair.js): the revealed seed against its commitment and every
// roll recomputed, showing "verified" or exactly which roll fails.
import { DicecupError, api } from './api.js';
import { dieSvg } from './dice.js';
import { esc } from './dom.js';
import { has, list, n, names, t } from './i18n.js';
import { verifyGame } from './fair.js';
import { refusal } from './profile.js';

const PAGE = 1000;
const AUTOPLAY_MS = 800;

async function allEvents(code) {
  const events = [];
  let after = 0;
  for (;;) {
    const page = await api.request('GET', `api/rooms/${encodeURIComponent(code)}/events`, { query: { after, limit: PAGE } });
    events.push(...page.events);
    if (!page.more || !page.events.length) return events;
    after = page.events[page.events.length - 1].version;
  }
}

/** The events of game `number`: its game_started to its game_finished (or the latest event). */
function gameEvents(events, number) {
  const start = events.findIndex((e) => e.type === 'game_started' && e.data.number === number);
  if (start < 0) return null;
  const end = events.findIndex((e, i) => i > start && (e.type === 'game_finished' || e.type === 'game_started'));
  return events.slice(start, end < 0 ? events.length : events[end].type === 'game_finished' ? end + 1 : end);
}

const diceText = (dice) => dice.map((d) => n(d)).join(' ');

/** One state per move: the position after it, and what it was. */
function buildSteps(events, order) {
  const cards = Object.fromEntries(order.map((id) => [id, {}]));
  const totals = Object.fromEntries(order.map((id) => [id, 0]));
  let state = { player: null, round: 0, dice: null, kept: [false, false, false, false, false], rollsLeft: 3, last: null };
  const snapshot = (event, kind) => ({ ...state, event, kind, cards: structuredClone(cards), totals: { ...totals } });
  const steps = [snapshot(events[0], 'start')];
  const rounds = new Map(); // version -> round
  for (const event of events.slice(1)) {
    const data = event.data || {};
    if (event.type === 'turn_started') {
      state = { ...state, player: data.player_id, round: data.round, dice: null, kept: [false, false, false, false, false], rollsLeft: 3, last: null };
    } else if (event.type === 'rolled') {
      state = { ...state, player: event.player_id, dice: data.dice, kept: data.kept, rollsLeft: data.rolls_left, last: null };
      rounds.set(event.version, state.round);
      steps.push(snapshot(event, 'rolled'));
    } else if (event.type === 'kept') {
      state = { ...state, kept: data.kept, last: null };
      steps.push(snapshot(event, 'kept'));
    } else if (event.type === 'scored') {
      cards[event.player_id][data.box] = data.points;
      totals[event.player_id] = data.total;
      state = { ...state, last: { player: event.player_id, box: data.box } };
      steps.push(snapshot(event, 'scored'));
    } else if (event.type === 'player_resigned') {
      steps.push(snapshot(event, 'resigned'));
    } else if (event.type === 'game_finished') {
      Object.assign(totals, data.totals);
      state = { ...state, dice: null, last: null };
      steps.push(snapshot(event, 'finished'));
    }
  }
  return { steps, rounds };
}

export async function replayPage(app, { code, number, rulesets }) {
  document.title = `${t('rp.title', { number, code })} · ${t('app.title')}`;
  app.innerHTML = `<section class="card"><h1 id="replay-title" tabindex="-1">${esc(t('rp.title', { number, code }))}</h1><p class="muted" aria-busy="true">${esc(t('pf.loading'))}</p></section>`;
  const head = app.querySelector('section');
  let room, events;
  try {
    [room, events] = await Promise.all([api.getRoom(code), allEvents(code)]);
  } catch (error) {
    const text = error instanceof DicecupError && error.code === 'room_not_found' ? t('error.room_not_found') : refusal(error);
    head.querySelector('p').outerHTML = `<p role="alert">${esc(text)}</p>`;
    return;
  }
  const game = gameEvents(events, number);
  if (!game) {
    head.querySelector('p').outerHTML = `<p role="alert">${esc(t('error.game_not_found'))}</p>`;
    return;
  }
  // Names of every seat the room had (players who left are in their events).
  const known = {};
  for (const event of events) if (event.data && event.data.player) known[event.data.player.id] = event.data.player.name;
  for (const player of room.players) known[player.id] = player.name;
  const name = (id) => known[id] || '?';
  const order = game[0].data.order;
  const rules = rulesets[room.ruleset];
  const boxes = rules ? rules.boxes.map((b) => b.id) : [...new Set(game.filter((e) => e.type === 'scored').map((e) => e.data.box))];
  const boxLabel = (box) => (has(`box.${room.ruleset}.${box}`) ? t(`box.${room.ruleset}.${box}`) : rules?.boxes.find((b) => b.id === box)?.label || box);
  const { steps, rounds } = buildSteps(game, order);
  const finished = game[game.length - 1].type === 'game_finished';
  const seed = finished ? game[game.length - 1].data.seed : null;

  head.innerHTML = `<h1 id="replay-title" tabindex="-1">${esc(t('rp.title', { number, code }))}</h1>
    <p>${esc(t(`ruleset.${room.ruleset}`))} · ${esc(list(order.map(name)))} · <a href="r/${esc(code)}">${esc(t('rp.room'))}</a></p>
    <p class="fair-check" id="fair-check" data-state="checking" role="status" aria-live="polite">${esc(t('rp.checking'))}</p>
    <p class="muted small fair-numbers">${esc(t('rp.commitment', { commitment: game[0].data.commitment || '–' }))}<br>${esc(t('rp.seed', { seed: seed || '–' }))}</p>`;
  head.insertAdjacentHTML(
    'afterend',
    `<section class="card replay" id="replay" aria-label="${esc(t('rp.moves'))}">
      <div class="row controls replay-controls" role="group" aria-label="${esc(t('rp.moves'))}">
        <button type="button" id="replay-first" aria-keyshortcuts="Home">${esc(t('rp.first'))}</button>
        <button type="button" id="replay-prev" aria-keyshortcuts="ArrowLeft">${esc(t('rp.prev'))}</button>
        <button type="button" id="replay-play" class="primary" aria-keyshortcuts="Space" aria-pressed="false">${esc(t('rp.play'))}</button>
        <button type="button" id="replay-next" aria-keyshortcuts="ArrowRight">${esc(t('rp.next'))}</button>
        <button type="button" id="replay-last" aria-keyshortcuts="End">${esc(t('rp.last'))}</button>
      </div>
      <label class="replay-scrub">${esc(t('rp.position'))}<input type="range" id="replay-range" min="0" max="${steps.length - 1}" value="0"></label>
      <p id="replay-step" class="turn" aria-live="polite"></p>
      <p id="replay-roll-check" class="field-error" role="alert" hidden></p>
      <div class="dice" id="replay-dice" aria-label="${esc(t('game.dice'))}" role="img"></div>
      <div class="scroll"><table class="scorecard" id="replay-card"><thead></thead><tbody></tbody></table></div>
      <p class="muted small">${esc(t('rp.keys'))}</p>
    </section>`,
  );
  const view = app.querySelector('#replay');
  let at = 0;
  let timer = null;
  let check = null; // the verification's result
  const failedVersion = () => (check && !check.ok && check.failure.version) || null;

  function describe(step) {
    const who = name(step.event.player_id);
    if (step.kind === 'start') return names('rp.step.start', order.map(name), { first: name(order[0]) });
    if (step.kind === 'rolled') return t('rp.step.rolled', { name: who, round: step.round, dice: diceText(step.dice), left: step.rollsLeft });
    if (step.kind === 'kept') {
      const kept = step.dice ? step.dice.filter((_, i) => step.kept[i]) : [];
      return kept.length ? t('rp.step.kept', { name: who, dice: diceText(kept) }) : t('rp.step.kept_none', { name: who });
    }
    if (step.kind === 'scored') return t('rp.step.scored', { name: who, points: step.event.data.points, box: boxLabel(step.event.data.box), total: step.event.data.total });
    if (step.kind === 'resigned') return t('rp.step.resigned', { name: name(step.event.data.player_id) });
    const winners = step.event.data.winners || [];
    return step.event.data.reason === 'resigned'
      ? t('rp.step.finished_resigned', { names: list(winners.map(name)) })
      : names('rp.step.finished', winners.map(name));
  }

  function draw() {
    const step = steps[at];
    view.dataset.step = String(at);
    view.dataset.kind = step.kind;
    view.dataset.version = String(step.event.version);
    view.querySelector('#replay-range').value = String(at);
    view.querySelector('#replay-range').setAttribute('aria-valuetext', t('rp.move_of', { move: at, moves: steps.length - 1 }));
    view.querySelector('#replay-step').textContent = t('rp.step_line', { move: t('rp.move_of', { move: at, moves: steps.length - 1 }), step: describe(step) });
    const bad = failedVersion() !== null && step.kind === 'rolled' && step.event.version === failedVersion();
    const line = view.querySelector('#replay-roll-check');
    line.hidden = !bad;
    line.textContent = bad ? t('rp.this_roll_fails', { expected: diceText(check.failure.expected) }) : '';
    view.classList.toggle('bad-roll', bad);
    const dice = step.dice || [];
    view.querySelector('#replay-dice').innerHTML = dice
      .map((face, i) => `<span class="die${step.kept[i] ? ' kept' : ''}" data-face="${face}">${dieSvg(face)}<span class="kept-label">${step.kept[i] ? esc(t('game.kept')) : ''}</span></span>`)
      .join('');
    view.querySelector('#replay-dice').setAttribute('aria-label', dice.length ? t('rp.dice', { dice: diceText(dice) }) : t('game.dice'));
    view.querySelector('#replay-card thead').innerHTML = `<tr><th scope="col"></th>${order.map((id) => `<th scope="col" class="${step.player === id && step.kind !== 'finished' ? 'current' : ''}">${esc(name(id))}</th>`).join('')}</tr>`;
    view.querySelector('#replay-card tbody').innerHTML =
      boxes
        .map(
          (box) => `<tr data-box="${esc(box)}"><th scope="row">${esc(boxLabel(box))}</th>${order
            .map((id) => {
              const value = step.cards[id][box];
              const fresh = step.last && step.last.player === id && step.last.box === box;
              return `<td class="${fresh ? 'fresh' : ''}" data-player="${esc(id)}">${value === undefined ? '' : n(value)}</td>`;
            })
            .join('')}</tr>`,
        )
        .join('') + `<tr class="sum" data-box="total"><th scope="row">${esc(t('card.total'))}</th>${order.map((id) => `<td data-player="${esc(id)}">${n(step.totals[id])}</td>`).join('')}</tr>`;
    for (const [id, disabled] of [['#replay-first', at === 0], ['#replay-prev', at === 0], ['#replay-next', at === steps.length - 1], ['#replay-last', at === steps.length - 1]]) {
      view.querySelector(id).disabled = disabled;
    }
  }

  const goTo = (index) => {
    at = Math.max(0, Math.min(steps.length - 1, index));
    if (at === steps.length - 1) stop();
    draw();
  };
  function stop() {
    if (timer) clearInterval(timer);
    timer = null;
    const play = view.querySelector('#replay-play');
    play.textContent = t('rp.play');
    play.setAttribute('aria-pressed', 'false');
  }
  function toggle() {
    if (timer) return stop();
    if (at === steps.length - 1) at = 0;
    const play = view.querySelector('#replay-play');
    play.textContent = t('rp.pause');
    play.setAttribute('aria-pressed', 'true');
    timer = setInterval(() => (view.isConnected ? goTo(at + 1) : stop()), AUTOPLAY_MS);
    draw();
  }
  view.querySelector('#replay-first').addEventListener('click', () => goTo(0));
  view.querySelector('#replay-prev').addEventListener('click', () => goTo(at - 1));
  view.querySelector('#replay-next').addEventListener('click', () => goTo(at + 1));
  view.querySelector('#replay-last').addEventListener('click', () => goTo(steps.length - 1));
  view.querySelector('#replay-play').addEventListener('click', toggle);
  view.querySelector('#replay-range').addEventListener('input', (event) => goTo(Number(event.target.value)));
  const onKey = (event) => {
    if (!view.isConnected) {
      document.removeEventListener('keydown', onKey);
      stop();
      return;
    }
    if (event.target.closest('input, select, textarea, dialog') || event.ctrlKey || event.metaKey || event.altKey) return;
    const rtl = document.documentElement.dir === 'rtl';
    const forward = rtl ? 'ArrowLeft' : 'ArrowRight';
    const back = rtl ? 'ArrowRight' : 'ArrowLeft';
    if (event.key === forward) goTo(at + 1);
    else if (event.key === back) goTo(at - 1);
    else if (event.key === 'Home') goTo(0);
    else if (event.key === 'End') goTo(steps.length - 1);
    else if (event.key === ' ' && !event.target.closest('button, a')) toggle();
    else return;
    event.preventDefault();
  };
  document.addEventListener('keydown', onKey);
  draw();

  // The fair-dice check.
  const panel = head.querySelector('#fair-check');
  const say = (state, text) => {
    panel.dataset.state = state;
    panel.textContent = text;
  };
  if (!finished) {
    say('unfinished', t('rp.unfinished'));
    return;
  }
  try {
    check = await verifyGame(seed, game);
  } catch {
    say('unavailable', t('rp.no_crypto'));
    return;
  }
  if (check.ok) {
    panel.dataset.rolls = String(check.rolls.length);
    say('verified', t('rp.verified', { rolls: check.rolls.length }));
  } else {
    const f = check.failure;
    panel.dataset.failedRoll = f.roll === undefined ? '' : String(f.roll);
    panel.dataset.failedVersion = f.version === undefined ? '' : String(f.version);
    const params = { roll: f.roll, name: name(f.player_id), round: rounds.get(f.version) || 0, shown: f.shown ? diceText(f.shown) : '', expected: f.expected ? diceText(f.expected) : '' };
    say('failed', t(`rp.fail.${f.kind}`, params));
    if (f.kind === 'roll') {
      const index = steps.findIndex((s) => s.kind === 'rolled' && s.event.version === f.version);
      panel.insertAdjacentHTML('beforeend', ` <button type="button" class="small" id="replay-goto-bad">${esc(t('rp.show_roll'))}</button>`);
      panel.querySelector('#replay-goto-bad').addEventListener('click', () => goTo(index));
    }
    draw();
  }
}
