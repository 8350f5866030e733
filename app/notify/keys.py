"""The server's VAPID key pair (RFC 8292): from the settings, or made on the
first start and kept in the database (``push_keys``), so every instance signs
with the same key and every browser's subscription stays valid across
restarts. Two instances starting at once both try to insert the row; the
primary key lets exactly one in and the other reads the winner's pair.

The private key never leaves this module's objects: it is not logged, not
served, and :class:`VapidKeys`' ``repr`` leaves it out."""

from __future__ import annotations

import base64
import logging

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid
from sqlalchemy import select
from sqlalchemy.exc import IntegrityError

from app.db import Database
from app.db.models import PushKey

log = logging.getLogger("dicecup.notify")

ROW = "vapid"


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def unb64url(text: str) -> bytes:
    """base64url without padding (``binascii.Error``/``ValueError`` if it is not)."""
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _private_from_text(text: str) -> ec.EllipticCurvePrivateKey:
    """A P-256 private key from base64url of its 32 raw bytes, or PEM."""
    text = text.strip()
    if text.startswith("-----BEGIN"):
        key = serialization.load_pem_private_key(text.encode(), password=None)
        if not isinstance(key, ec.EllipticCurvePrivateKey) or key.curve.name != "secp256r1":
            raise ValueError("the VAPID key is not a P-256 key")
        return key
    raw = unb64url(text)
    if len(raw) != 32:
        raise ValueError("the VAPID private key is base64url of 32 bytes, or PEM")
    return ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())


def _raw_private(key: ec.EllipticCurvePrivateKey) -> str:
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def _raw_public(key: ec.EllipticCurvePrivateKey) -> str:
    point = key.public_key().public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(point)


class VapidKeys:
    """The key pair: ``public_key`` (base64url of the uncompressed P-256 point,
    the browsers' ``applicationServerKey``) and the signer pywebpush uses."""

    def __init__(self, private: ec.EllipticCurvePrivateKey) -> None:
        self._private = private
        self.public_key = _raw_public(private)
        self.signer = Vapid(private_key=private)

    def __repr__(self) -> str:
        return f"VapidKeys(public_key={self.public_key!r})"

    @classmethod
    def from_text(cls, text: str) -> VapidKeys:
        return cls(_private_from_text(text))

    @classmethod
    def generate(cls) -> VapidKeys:
        return cls(ec.generate_private_key(ec.SECP256R1()))

    def private_text(self) -> str:
        """For storing in the database only."""
        return _raw_private(self._private)


async def load_keys(db: Database, configured: str | None) -> VapidKeys:
    """The configured pair, else the database's, else a new one stored there
    (race-safe: of two instances inserting at once, the second reads the first's)."""
    if configured:
        return VapidKeys.from_text(configured)
    async with db.read() as session:
        row = await session.get(PushKey, ROW)
        if row is not None:
            return VapidKeys.from_text(row.private_key)
    keys = VapidKeys.generate()
    try:
        async with db.write() as session:
            session.add(PushKey(name=ROW, private_key=keys.private_text(), public_key=keys.public_key))
    except IntegrityError:
        async with db.read() as session:
            stored = (await session.execute(select(PushKey.private_key).where(PushKey.name == ROW))).scalar_one()
        return VapidKeys.from_text(stored)
    log.info("made a new VAPID key pair (public key %s); it is kept in the database", keys.public_key)
    return keys
