"""Where a push may go (app/notify/endpoints.py): endpoints parsed once,
strictly, and addresses checked after resolution. Pure: no database, no
network (the resolver's DNS is a table here; the check on its answers is
the real one)."""

import socket

import pytest
from aiohttp.abc import AbstractResolver, ResolveResult

from app.notify.endpoints import (
    EndpointRefused,
    GuardedResolver,
    NonPublicAddress,
    parse_endpoint,
    public_address,
)

HOSTS = ["fcm.googleapis.com", "push.services.mozilla.com", "push.apple.com", "notify.windows.com"]
"""DICECUP_PUSH_ENDPOINT_HOSTS's default."""

REFUSED = [
    # the issue's: a backslash ends the authority for HTTP clients, not for urlsplit
    "https://127.0.0.1\\.fcm.googleapis.com/x",
    "https://localhost\\.push.services.mozilla.com/x",
    "https://0x7f000001\\.fcm.googleapis.com/x",
    "https://fcm.googleapis.com\\@127.0.0.1/x",
    "https://127.0.0.1\\@fcm.googleapis.com/x",
    # ports other than 443
    "https://fcm.googleapis.com:8443/x",
    "https://fcm.googleapis.com:80/x",
    "https://fcm.googleapis.com:22/x",
    "https://fcm.googleapis.com:/x",
    # not https
    "http://fcm.googleapis.com/x",
    "HTTPS://fcm.googleapis.com/x",
    "ftp://fcm.googleapis.com/x",
    # address literals in any notation
    "https://127.0.0.1/x",
    "https://127.1/x",
    "https://2130706433/x",
    "https://0x7f000001/x",
    "https://0177.0.0.1/x",
    "https://[::1]/x",
    "https://[::ffff:127.0.0.1]/x",
    "https://169.254.169.254/latest/meta-data",
    # user info, fragments, other hosts
    "https://fcm.googleapis.com@127.0.0.1/x",
    "https://user:pw@fcm.googleapis.com/x",
    "https://fcm.googleapis.com/x#frag",
    "https://fcm.googleapis.com%2F@127.0.0.1/x",
    "https://evilfcm.googleapis.com/x",
    "https://fcm.googleapis.com.evil.example/x",
    "https://evil.example/x?fcm.googleapis.com",
    "https://evil.example/fcm.googleapis.com/x",
    "https://localhost/x",
    # characters parsers disagree on
    "https://fcm.googleapis.com/x y",
    "https://fcm.googleapis.com/x\ty",
    "https://fcm.googleapis.com/x\ny",
    "https://fcm.googleapis.com/x\\..\\y",
    "https://fcm.googleapis.com\u3002evil.example/x",
    "https://fcm.googleapis.com/\u00e9",
    "https://-fcm.googleapis.com/x",
    "https://a..fcm.googleapis.com/x",
    "https://fcm.googleapis.com/x%zz",
    " https://fcm.googleapis.com/x",
    "https:/fcm.googleapis.com/x",
    "https:\\\\fcm.googleapis.com/x",
]

ACCEPTED = [
    ("https://fcm.googleapis.com/fcm/send/cXk:APA91bH-x_y", "fcm.googleapis.com", "/fcm/send/cXk:APA91bH-x_y", ""),
    ("https://updates.push.services.mozilla.com/wpush/v2/gAAAAABk", "updates.push.services.mozilla.com", None, ""),
    ("https://web.push.apple.com:443/QGx1", "web.push.apple.com", "/QGx1", ""),
    ("https://FCM.googleapis.com./x", "fcm.googleapis.com", "/x", ""),
    ("https://wns2-par02p.notify.windows.com/w/?token=BQY%2fAA%3d", "wns2-par02p.notify.windows.com", "/w/", None),
]


@pytest.mark.parametrize("endpoint", REFUSED)
def test_endpoints_the_server_will_not_post_to(endpoint: str) -> None:
    with pytest.raises(EndpointRefused):
        parse_endpoint(endpoint, HOSTS)


@pytest.mark.parametrize(("endpoint", "host", "path", "query"), ACCEPTED)
def test_push_service_endpoints_parse_into_the_parts_sent_to(
    endpoint: str, host: str, path: str | None, query: str | None
) -> None:
    parsed = parse_endpoint(endpoint, HOSTS)
    assert (parsed.scheme, parsed.host, parsed.port) == ("https", host, 443)
    assert parsed.origin == f"https://{host}"
    # the request's URL is made of exactly these parts: host and port as checked
    assert (parsed.url.host, parsed.url.port, parsed.url.scheme) == (host, 443, "https")
    if path is not None:
        assert parsed.path == path
    if query is not None:
        assert parsed.query == query


def test_loopback_endpoints_are_for_tests_only() -> None:
    for endpoint in ("http://127.0.0.1:8123/push/x", "https://127.0.0.2:9000/x", "http://[::1]:8123/x"):
        with pytest.raises(EndpointRefused):
            parse_endpoint(endpoint, ["127.0.0.1", "127.0.0.2", "::1", "*"])
    parsed = parse_endpoint("http://127.0.0.1:8123/push/x", ["127.0.0.1"], loopback_for_tests=True)
    assert (parsed.host, parsed.port, parsed.origin) == ("127.0.0.1", 8123, "http://127.0.0.1:8123")
    # the switch opens loopback literals only, still on the allow-list
    for endpoint in (
        "http://10.0.0.1:80/x",
        "http://169.254.169.254/latest",
        "http://fcm.googleapis.com/x",
        "http://127.0.0.1\\.fcm.googleapis.com/x",
        "http://127.0.0.2:8123/x",
    ):
        with pytest.raises(EndpointRefused):
            parse_endpoint(endpoint, [*HOSTS, "127.0.0.1", "10.0.0.1"], loopback_for_tests=True)


@pytest.mark.parametrize(
    "address",
    [
        "127.0.0.1",
        "127.0.0.3",
        "0.0.0.0",
        "10.1.2.3",
        "172.16.0.1",
        "192.168.1.1",
        "169.254.169.254",  # cloud metadata (link-local)
        "100.64.0.1",  # carrier-grade NAT
        "100.100.100.200",  # a cloud's metadata, in the shared range
        "192.0.2.1",
        "198.18.0.1",
        "224.0.0.1",
        "255.255.255.255",
        "::",
        "::1",
        "fe80::1",
        "fe80::1%eth0",
        "fd00:ec2::254",  # a cloud's IPv6 metadata (unique local)
        "::ffff:127.0.0.1",
        "::ffff:169.254.169.254",
        "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
        "2002:7f00:1::1",  # 6to4 of 127.0.0.1
        "ff02::1",
        "not an address",
    ],
)
def test_non_public_addresses_are_refused(address: str) -> None:
    assert not public_address(address)


@pytest.mark.parametrize("address", ["8.8.8.8", "142.250.185.74", "2607:f8b0:4004:c07::5f", "64:ff9b::808:808"])
def test_public_addresses_pass(address: str) -> None:
    assert public_address(address)


class Table(AbstractResolver):
    """DNS as a table (the sandbox has none), counting lookups."""

    def __init__(self, names: dict[str, list[str]]) -> None:
        self.names = names
        self.lookups = 0

    async def resolve(
        self, host: str, port: int = 0, family: socket.AddressFamily = socket.AF_INET
    ) -> list[ResolveResult]:
        self.lookups += 1
        return [
            ResolveResult(
                hostname=host,
                host=address,
                port=port,
                family=socket.AF_INET6 if ":" in address else socket.AF_INET,
                proto=0,
                flags=0,
            )
            for address in self.names.get(host, [])
        ]

    async def close(self) -> None:
        pass


async def test_a_name_with_any_non_public_address_is_refused_whole() -> None:
    table = Table(
        {
            "fcm.googleapis.com": ["142.250.185.74", "2607:f8b0:4004:c07::5f"],
            "rebound.push.apple.com": ["17.57.146.10", "127.0.0.1"],
            "metadata.notify.windows.com": ["169.254.169.254"],
            "gone.push.apple.com": [],
        }
    )
    guarded = GuardedResolver(table)
    found = await guarded.resolve("fcm.googleapis.com", 443)
    assert [item["host"] for item in found] == ["142.250.185.74", "2607:f8b0:4004:c07::5f"]
    for name in ("rebound.push.apple.com", "metadata.notify.windows.com", "gone.push.apple.com"):
        with pytest.raises(NonPublicAddress):
            await guarded.resolve(name, 443)
    assert table.lookups == 4  # one lookup each: what is checked is what is connected to
