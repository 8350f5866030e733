"""The shipped nginx config sends the client's security headers (issue
27.6): on the app's pages and answers and on the proxy's own, each header
once, with the policy of app/web/headers.py."""

import httpx
import pytest

from app.web.headers import POLICY

from ..conftest import test_settings
from ..live import server_in_thread
from .test_proxy import NAME, StubDNS, nginx

pytestmark = [pytest.mark.nginx]

HEADERS = {
    "content-security-policy": POLICY,
    "x-frame-options": "DENY",
    "x-content-type-options": "nosniff",
    "referrer-policy": "no-referrer",
}


async def test_the_proxy_sends_the_security_headers_once(sqlite_database: str) -> None:
    dns = StubDNS(NAME)
    dns.addresses = ["127.0.0.1"]
    try:
        with server_in_thread(test_settings(sqlite_database)) as app, nginx(dns.port, app.port) as proxy:
            async with httpx.AsyncClient(base_url=f"http://{proxy}") as http:
                for path, status in (("/", 200), ("/r/ABCDEF", 200), ("/api/rulesets", 200), ("/metrics", 404)):
                    r = await http.get(path)
                    assert r.status_code == status, path
                    for name, value in HEADERS.items():
                        assert r.headers.get_list(name) == [value], (path, name, r.headers.get_list(name))
    finally:
        dns.close()
