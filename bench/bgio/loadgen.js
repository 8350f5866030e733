'use strict';
// The load generator of the boardgame.io side of python -m bench.bgio: the
// shape of bench/loadgen.py (closed loop), over boardgame.io's own client
// library and protocol (socket.io, WebSocket transport).
//
//   node loadgen.js --server http://127.0.0.1:PORT --out FILE
//                   [--game yacht|yahtzee] [--matches 100] [--players 4] [--spectators 1] [--seed 1]
//
// Each match is created and its seats taken through the lobby API, then every
// member (each player, each spectator) connects with a client of its own and
// syncs. Once every match is connected, the clock starts and every match plays
// one complete game at once: the player whose turn it is makes its move (the
// random legal choice of bench/loadgen.py's choose()), and once every member
// of the match has the server's update, the next move goes out. Recorded per
// move: move -> the server's update at the mover ("ack" in bench/loadgen.py)
// and at every other member (the fan-out), in microseconds. Checked: every
// member sees every state once, in order, no gap; every member ends with the
// same final state; every game ends. Each game's moves and dice go to the
// report, for bench/bgio/verify.py to replay through app/rules.

const fs = require('node:fs');
const { performance } = require('node:perf_hooks');
const { Client, LobbyClient } = require('boardgame.io/client');
const { SocketIO } = require('boardgame.io/multiplayer');
const { GAMES, RULES, scorable } = require('./game');

const MOVE_TIMEOUT_MS = 60000;

function parse(argv) {
  const args = { game: 'yacht', matches: 100, players: 4, spectators: 1, seed: 1 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '');
    if (!(key in args) && key !== 'server' && key !== 'out') throw new Error(`unknown option ${argv[i]}`);
    args[key] = ['server', 'out', 'game'].includes(key) ? argv[i + 1] : Number(argv[i + 1]);
  }
  if (!args.server || !args.out) throw new Error('--server and --out are required');
  if (!(args.game in GAMES)) throw new Error(`--game must be one of ${Object.keys(GAMES)}`);
  return args;
}

// A small seeded generator (mulberry32): the policy's choices, never the dice.
function rng(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const pick = (random, list) => list[Math.floor(random() * list.length)];

/** bench/loadgen.py's choose(): a random legal move of the player whose turn it is. */
function choose(rules, state, random) {
  const turn = state.G.turn;
  if (turn.dice === null) return { type: 'roll', args: [] };
  const boxes = Object.keys(scorable(rules, state.G, state.ctx.currentPlayer)).sort();
  const options = [{ type: 'score', args: [pick(random, boxes)] }];
  if (turn.rollsLeft) {
    const keep = [0, 1, 2, 3, 4].filter(() => random() < 0.5);
    options.push({ type: 'roll', args: [] }, { type: 'roll', args: [keep] }, { type: 'keep', args: [keep] });
  }
  return pick(random, options);
}

/** One connected client: a seat (playerID) or a spectator (none). */
class Member {
  constructor(game, server, matchID, playerID, credentials) {
    this.ids = []; // every state id this client was given, in order
    this.received = new Map(); // state id -> when it arrived
    this.state = null;
    this.waiters = [];
    this.client = Client({
      game,
      matchID,
      playerID,
      credentials,
      debug: false,
      multiplayer: SocketIO({ server, socketOpts: { transports: ['websocket'] } }),
    });
    this.client.subscribe((state) => this.seen(state));
  }

  seen(state) {
    if (state === null) return;
    const id = state._stateID;
    if (this.state === null || id !== this.state._stateID) {
      this.ids.push(id);
      if (!this.received.has(id)) this.received.set(id, performance.now());
    }
    this.state = state;
    this.waiters = this.waiters.filter(({ id: wanted, resolve }) => (id >= wanted ? (resolve(), false) : true));
  }

  /** Resolves once this client has a state numbered ``id`` or later. */
  waitFor(id) {
    if (this.state !== null && this.state._stateID >= id) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no state ${id} within ${MOVE_TIMEOUT_MS} ms`)), MOVE_TIMEOUT_MS);
      this.waiters.push({ id, resolve: () => { clearTimeout(timer); resolve(); } });
    });
  }

  /** Why this client's states are wrong (a gap, a repeat, out of order), or null. */
  problem() {
    for (let i = 1; i < this.ids.length; i++) {
      if (this.ids[i] !== this.ids[i - 1] + 1) return `states ${this.ids[i - 1]} then ${this.ids[i]}`;
    }
    return null;
  }
}

async function makeMatch(lobby, args, server, game) {
  const { matchID } = await lobby.createMatch(args.game, { numPlayers: args.players });
  const seats = {};
  for (let i = 0; i < args.players; i++) {
    const playerID = String(i);
    const { playerCredentials } = await lobby.joinMatch(args.game, matchID, { playerID, playerName: `P${i}` });
    seats[playerID] = new Member(game, server, matchID, playerID, playerCredentials);
  }
  const spectators = Array.from({ length: args.spectators }, () => new Member(game, server, matchID));
  const members = [...Object.values(seats), ...spectators];
  for (const member of members) member.client.start();
  await Promise.all(members.map((m) => m.waitFor(0)));
  return { matchID, seats, members, record: null };
}

async function play(match, rules, random, stats) {
  const { seats, members } = match;
  const first = members[0].state;
  const moves = [];
  let state = first;
  while (state.ctx.gameover === undefined) {
    const actor = seats[state.ctx.currentPlayer];
    const move = choose(rules, state, random);
    const id = state._stateID + 1;
    const sent = performance.now();
    actor.client.moves[move.type](...move.args);
    try {
      await Promise.all(members.map((m) => m.waitFor(id)));
    } catch (error) {
      const kind = error.message.replace(/\d+/g, 'N');
      stats.errors[kind] = (stats.errors[kind] || 0) + 1;
      stats.anomalies.push(`match ${match.matchID}: ${move.type} ${JSON.stringify(move.args)}: ${error.message}`);
      return;
    }
    stats.ack.push(Math.round((actor.received.get(id) - sent) * 1000));
    let last = 0;
    for (const member of members) {
      if (member === actor) continue;
      const lag = Math.round((member.received.get(id) - sent) * 1000);
      stats.fanout.push(lag);
      last = Math.max(last, lag);
    }
    if (members.length > 1) stats.fanoutAll.push(last);
    stats.moves += 1;
    state = actor.state;
    if (state._stateID !== id) {
      stats.anomalies.push(`match ${match.matchID}: expected state ${id}, the mover has ${state._stateID}`);
      return;
    }
    const done = { player: actor.client.playerID, type: move.type, args: move.args };
    if (move.type === 'roll') done.dice = state.G.turn.dice;
    moves.push(done);
  }
  match.record = {
    match: match.matchID,
    rolloff: first.G.rolloff,
    first: first.ctx.currentPlayer,
    moves,
    cards: state.G.cards,
    gameover: state.ctx.gameover,
  };
}

function check(match, stats) {
  for (const member of match.members) {
    const problem = member.problem();
    if (problem) stats.anomalies.push(`match ${match.matchID}, member ${member.client.playerID ?? 'spectator'}: ${problem}`);
  }
  const finals = new Set(match.members.map((m) => JSON.stringify([m.state._stateID, m.state.G, m.state.ctx.gameover])));
  if (finals.size !== 1) stats.anomalies.push(`match ${match.matchID}: members end with ${finals.size} different states`);
}

async function main() {
  const args = parse(process.argv.slice(2));
  const game = GAMES[args.game];
  const rules = RULES[args.game];
  const lobby = new LobbyClient({ server: args.server });
  const stats = { moves: 0, ack: [], fanout: [], fanoutAll: [], errors: {}, anomalies: [] };
  const cpu = process.cpuUsage();

  const matches = [];
  for (let i = 0; i < args.matches; i += 20) {
    const batch = Math.min(20, args.matches - i);
    matches.push(...(await Promise.all(Array.from({ length: batch }, () => makeMatch(lobby, args, args.server, game)))));
  }

  const started = performance.now();
  await Promise.all(matches.map((match, i) => play(match, rules, rng(args.seed * 1000 + i), stats)));
  const elapsed = (performance.now() - started) / 1000;

  for (const match of matches) check(match, stats);
  for (const match of matches) for (const member of match.members) member.client.stop();
  const used = process.cpuUsage(cpu);
  const report = {
    game: args.game,
    matches: args.matches,
    players: args.players,
    spectators: args.spectators,
    moves: stats.moves,
    elapsed_s: elapsed,
    games: matches.length,
    games_finished: matches.filter((m) => m.record !== null && m.record.gameover !== undefined).length,
    errors: stats.errors,
    anomalies: stats.anomalies,
    cpu_s: (used.user + used.system) / 1e6,
    samples_us: { ack: stats.ack, fanout: stats.fanout, fanout_all: stats.fanoutAll },
    records: matches.map((m) => m.record).filter((r) => r !== null),
  };
  fs.writeFileSync(args.out, JSON.stringify(report));
  // The sockets' close frames need a moment to go out before the process ends.
  setTimeout(() => process.exit(0), 200);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
