"""``python -m app.ops.probe [health|ready]``: a container's health check.
Asks this instance's ``/api/health`` (liveness: the process answers) or
``/api/ready`` (readiness: it can serve, 503 otherwise) on the port it serves
(``DICECUP_PORT``), so no port is written twice; exit status 0 when it answers
200, 1 otherwise."""

from __future__ import annotations

import sys
import urllib.error
import urllib.request

from app.config import Settings


def probe(kind: str, timeout: float = 2.0) -> bool:
    settings = Settings()
    host = "127.0.0.1" if settings.host in ("", "0.0.0.0", "::") else settings.host
    if ":" in host:
        host = f"[{host}]"
    url = f"http://{host}:{settings.port}/api/{kind}"
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
