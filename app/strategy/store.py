"""The strategy tables a server instance holds, and their background solve.

Tables on disk are loaded at start. Missing ones are computed by a child
process (``python -m app.strategy solve all``), never inside a request; the
file lock in ``tables.ensure`` makes one process per machine do the work
while the others wait for its result. Until a variant's table is loaded,
``advisor`` answers None: hints say ``strategy_unavailable`` and bots play
greedily. :attr:`StrategyStore.state` says which (``loading``, ``computing``,
``ready``, ``failed``; readiness reports it), and a failure is logged at
ERROR with its reason.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import sys
from pathlib import Path
from typing import Literal

from .advisor import Advisor
from .model import ALL_VARIANTS, Variant
from .tables import load

log = logging.getLogger("dicecup.strategy")

StrategyState = Literal["loading", "computing", "ready", "failed"]


class StrategyStore:
    def __init__(self, directory: Path, solve: bool = True) -> None:
        self.directory = directory
        self.solve = solve
        self._advisors: dict[Variant, Advisor] = {}
        self._greedy: dict[Variant, Advisor] = {}
        self._process: asyncio.subprocess.Process | None = None
        self._task: asyncio.Task[None] | None = None
        self._state: StrategyState = "loading"
        self.failure: str | None = None
        """Why the tables are not all there (``state == "failed"``)."""
        self._closing = False

    def load_available(self) -> list[Variant]:
        """Load every table on disk; the variants still missing."""
        missing = []
        for variant in ALL_VARIANTS:
            if variant in self._advisors:
                continue
            table = load(self.directory, variant)
            if table is None:
                missing.append(variant)
            else:
                self._advisors[variant] = Advisor(variant, table)
        return missing

    async def start(self) -> None:
        """Load (and if allowed, compute) the tables in the background: the
        server serves meanwhile."""
        self._task = asyncio.create_task(self._prepare(), name="strategy-tables")

    async def _prepare(self) -> None:
        try:
            missing = await asyncio.to_thread(self.load_available)
            if missing and self.solve:
                self._state = "computing"
                await self._solve_missing()
                if self._closing:
                    return
                missing = await asyncio.to_thread(self.load_available)
            if not missing:
                self._state = "ready"
                log.info("strategy tables ready")
                return
            names = ", ".join(variant.key for variant in missing)
            if self.solve:
                self._fail(f"computing them failed ({self.failure or 'no table written'}); missing: {names}")
            else:
                self._fail(f"missing in {self.directory} and DICECUP_STRATEGY_SOLVE is off: {names}")
        except asyncio.CancelledError:
            raise
        except Exception as error:
            log.exception("strategy tables could not be prepared in %s", self.directory)
            self._state, self.failure = "failed", f"preparing them failed: {error!r}"

    def _fail(self, reason: str) -> None:
        self._state, self.failure = "failed", reason
        log.error("strategy tables unavailable: %s; hints answer 503 and bots play greedily", reason)

    @property
    def state(self) -> StrategyState:
        """``loading`` (reading tables from disk at start), ``computing`` (a
        child process solves the missing ones), ``ready`` (every table is
        loaded), ``failed`` (some stay missing: see :attr:`failure`)."""
        return self._state

    @property
    def ready(self) -> bool:
        return len(self._advisors) == len(ALL_VARIANTS)

    async def wait_ready(self) -> None:
        if self._task is not None:
            await self._task

    async def _solve_missing(self) -> None:
        log.info(
            "computing strategy tables in the background, once (in %s; about half a minute on two cores): "
            "the server plays meanwhile, hints and optimal bots wait for them",
            self.directory,
        )
        self._process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "app.strategy",
            "solve",
            "all",
            "--quiet",
            "--dir",
            str(self.directory),
            stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.PIPE,
        )
        _, errors = await self._process.communicate()
        if self._process.returncode != 0 and not self._closing:
            text = errors.decode(errors="replace").strip()
            log.error("strategy tables could not be computed: %s", text[-2000:])
            self.failure = f"exit status {self._process.returncode}: {text.splitlines()[-1] if text else ''}"
        else:
            log.info("strategy tables computed")

    def advisor(self, variant: Variant) -> Advisor | None:
        """The optimal advisor of ``variant`` once its table is loaded."""
        return self._advisors.get(variant)

    def greedy(self, variant: Variant) -> Advisor:
        """An advisor that maximizes the current turn's points (needs no table)."""
        if variant not in self._greedy:
            self._greedy[variant] = Advisor(variant, None)
        return self._greedy[variant]

    async def close(self) -> None:
        self._closing = True
        if self._process is not None and self._process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self._process.terminate()
            await self._process.wait()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self._task
