"""Dicecup: a self-hostable multiplayer dice-game server (Yahtzee, Yacht and Scandinavian Yatzy)."""
