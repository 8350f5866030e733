"""``python -m app.ops.probe [health|ready]``: a container's health check.
Asks this instance's ``/api/health`` (liveness: the process answers) or
``/api/ready`` (readiness: it can serve, 503 otherwise) on the port it serves
(``DICECUP_PORT``), so no port is written twice; exit status 0 when it answers
200, 1 otherwise."""

from __future__ import annotations

import os
import sys
import urllib.error
import urllib.request


def target() -> tuple[str, int]:
    """The address the server listens on. ``DICECUP_HOST`` and
    ``DICECUP_PORT`` from the environment when both are there (they win over
    a .env file, as in the settings; the image sets both), without importing
    the settings: the probe runs every few seconds, and pydantic's import
    alone took most of a 3 s check's time on a loaded machine. Otherwise the
    settings' own answer (.env, defaults)."""
    host, port = os.environ.get("DICECUP_HOST"), os.environ.get("DICECUP_PORT")
    if host is not None and port is not None and port.strip().isdigit():
        return host.strip(), int(port)
    from app.config import Settings

    settings = Settings()
    return settings.host, settings.port


def probe(kind: str, timeout: float = 2.0) -> bool:
    host, port = target()
    host = "127.0.0.1" if host in ("", "0.0.0.0", "::") else host
    if ":" in host:
        host = f"[{host}]"
    url = f"http://{host}:{port}/api/{kind}"
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return bool(response.status == 200)
    except (urllib.error.URLError, OSError) as error:
        print(f"{url}: {error}", file=sys.stderr)
        return False


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    kind = args[0] if args else "health"
    if kind not in ("health", "ready"):
        print("usage: python -m app.ops.probe [health|ready]", file=sys.stderr)
        return 2
    return 0 if probe(kind) else 1


if __name__ == "__main__":
    sys.exit(main())
