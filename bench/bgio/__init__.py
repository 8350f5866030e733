"""Dicecup beside boardgame.io serving the same game, in one run:
``python -m bench.bgio`` (bench/README.md).

``game.js``, ``server.js`` and ``loadgen.js`` are the boardgame.io side (Node;
its npm dependencies are pinned in ``package.json`` and ``package-lock.json``
and installed into ``node_modules`` by the bench command); ``scenario.py``
runs both sides and writes the report; ``verify.py`` replays boardgame.io's
games through ``app.rules``.
"""
