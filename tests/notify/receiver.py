"""A push service of the tests' own (RFC 8030) on 127.0.0.1: it receives the
server's push requests, checks their VAPID authorization (RFC 8292) against
the public key the server serves, and decrypts their aes128gcm payload
(RFC 8291) with the browser-side keys of the subscription it was sent to."""

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Browser:
    """One browser's push subscription: its key pair and auth secret, as pushManager.subscribe makes them."""

    endpoint: str
    private: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def subscription(self, lang: str | None = None) -> dict[str, Any]:
        point = self.private.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        body: dict[str, Any] = {
            "endpoint": self.endpoint,
            "expirationTime": None,
            "keys": {"p256dh": b64url(point), "auth": b64url(self.auth)},
        }
        if lang is not None:
            body["lang"] = lang
        return body


@dataclass
class Push:
    path: str
    headers: dict[str, str]
    body: bytes


def verify_vapid(authorization: str, public_key: str) -> dict[str, Any]:
    """The claims of a ``vapid t=<JWT>, k=<key>`` authorization, after checking
    that ``k`` is ``public_key`` and the JWT's ES256 signature is its own."""
    scheme, _, params = authorization.partition(" ")
    assert scheme.lower() == "vapid", authorization[:20]
    parts = dict(item.strip().split("=", 1) for item in params.split(","))
    assert parts["k"] == public_key
    header_b64, claims_b64, signature_b64 = parts["t"].split(".")
    header = json.loads(unb64url(header_b64))
    assert header["alg"] == "ES256", header
    raw = unb64url(signature_b64)
    assert len(raw) == 64
    signature = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64url(public_key))
    try:
        key.verify(signature, f"{header_b64}.{claims_b64}".encode(), ec.ECDSA(hashes.SHA256()))
    except InvalidSignature:
        raise AssertionError("the VAPID JWT is not signed by the served key") from None
    claims: dict[str, Any] = json.loads(unb64url(claims_b64))
    return claims


def decrypt(push: Push, browser: Browser) -> dict[str, Any]:
    assert push.headers["content-encoding"] == "aes128gcm"
    plain = http_ece.decrypt(push.body, private_key=browser.private, auth_secret=browser.auth, version="aes128gcm")
    payload: dict[str, Any] = json.loads(plain)
    return payload


class Receiver:
    """The push service: ``url(name)`` is a subscription endpoint; an endpoint's
    answer is 201 unless ``answers[name]`` says otherwise (410: gone), or a
    307 to ``redirects[name]``."""

    def __init__(self, host: str = "127.0.0.1") -> None:
        self.pushes: list[Push] = []
        self.answers: dict[str, int] = {}
        self.redirects: dict[str, str] = {}
        self._arrived = threading.Condition()
        receiver = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length)
                name = self.path.rsplit("/", 1)[-1]
                status = receiver.answers.get(name, 201)
                with receiver._arrived:  # recorded before the answer: the sender's return means it is here
                    receiver.pushes.append(Push(self.path, {k.lower(): v for k, v in self.headers.items()}, body))
                    receiver._arrived.notify_all()
                location = receiver.redirects.get(name)
                self.send_response(307 if location else status)
                if location:
                    self.send_header("location", location)
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer((host, 0), Handler)
        self.port = self.server.server_address[1]
        self.origin = f"http://{host}:{self.port}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def url(self, name: str) -> str:
        return f"{self.origin}/push/{name}"

    def browser(self, name: str) -> Browser:
        return Browser(self.url(name))

    def __enter__(self) -> "Receiver":
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()

    def to(self, name: str) -> list[Push]:
        with self._arrived:
            return [p for p in self.pushes if p.path.endswith("/" + name)]

    def wait(self, name: str, count: int = 1, timeout: float = 30.0) -> list[Push]:
        """The pushes to ``name`` once there are ``count`` of them (AssertionError after ``timeout``)."""
        end = time.monotonic() + timeout
        with self._arrived:
            while len([p for p in self.pushes if p.path.endswith("/" + name)]) < count:
                left = end - time.monotonic()
                assert left > 0, f"{count} push(es) to {name} did not arrive in {timeout} s"
                self._arrived.wait(left)
        return self.to(name)
