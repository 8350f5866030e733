"""Dicecup: a self-hostable multiplayer dice-game server (Yahtzee and Yacht)."""
