"""Operations on a deployment: backups of the SQLite database, the
configuration reference. ``python -m app`` wires their commands."""

from __future__ import annotations

import argparse


def add_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the operations' subcommands to ``python -m app``; each sets ``handler``."""
    # Imported here, not with the package: the health probe
    # (``python -m app.ops.probe``) runs every few seconds and needs neither.
    from . import backup, configdoc

    backup.add_commands(sub)
    configdoc.add_commands(sub)
