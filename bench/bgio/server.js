'use strict';
// boardgame.io's own server (Koa, socket.io, the lobby API) serving the games
// of game.js from memory, its default storage: node server.js <port>.
// Started by python -m bench.bgio with NODE_ENV=production, which turns off
// boardgame.io's logging of every move (Dicecup's bench server logs warnings only).

const { Server } = require('boardgame.io/server');
const { GAMES } = require('./game');

const port = Number(process.argv[2]);
if (!Number.isInteger(port) || port <= 0) {
  console.error('usage: node server.js <port>');
  process.exit(2);
}

// The bench's clients are Node processes, which send no Origin: no CORS origin is needed.
const server = Server({ games: Object.values(GAMES), origins: [] });

// Server.run() listens on every interface; a bench server listens on loopback
// only. koa-socket-2 has already replaced app.listen with its own server's.
const listen = server.app.listen;
server.app.listen = (listenPort, callback) => listen.call(server.app, listenPort, '127.0.0.1', callback);

server.run(port, () => console.log(`boardgame.io serving ${Object.keys(GAMES).join(', ')} on 127.0.0.1:${port}`));

process.on('SIGTERM', () => process.exit(0));
