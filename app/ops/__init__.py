"""Operations on a deployment: backups of the SQLite database, the
configuration reference. ``python -m app`` wires their commands."""

from __future__ import annotations

import argparse

from . import backup, configdoc


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the operations' subcommands to ``python -m app``; each sets ``handler``."""
    backup.add_commands(sub)
    configdoc.add_commands(sub)
