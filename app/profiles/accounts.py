"""Accounts: a profile's tokens, its username and password, signing in and
out (docs/api.md, "Profiles" and "Accounts and tokens").

Tokens (a profile's own and each sign-in's) are 256-bit, stored as their
SHA-256 and found by a lookup of the digest, like seat tokens: the
comparison happens inside the database's index on a value the caller cannot
steer, so it leaks nothing of the stored token through timing. A token
unused for :attr:`Accounts.token_idle` stops working (and is deleted); its
``last_used_at`` is written at most every :data:`TOUCH_EVERY`, so a busy
client costs no write per request. A profile keeps at most
:data:`MAX_SESSIONS` sign-in tokens: a new sign-in ends the oldest.

Changing the username or password needs the current password once one is
set, and ends every other token of the profile (a stolen token cannot lock
its owner out, nor outlive the change); :meth:`Accounts.sign_out_everywhere`
ends them all. A username is checked before anything is hashed, and the
hashes run in :class:`~.passwords.Hasher`'s own threads."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from sqlalchemy import delete, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.ext.asyncio import AsyncSession

from app.db import Database
from app.db.models import Profile, ProfileCredential, ProfileToken, utcnow
from app.rooms import DomainError
from app.rooms import secrets as room_secrets
from app.rooms.views import JSON

from .passwords import Hasher
from .tokens import ProfileAuth, normalize_username, possible_username

TOUCH_EVERY = timedelta(hours=1)
"""How stale a token's ``last_used_at`` may get before a use writes it again."""
MAX_SESSIONS = 20
"""Sign-in tokens a profile keeps at most (the oldest goes first)."""


def _aware(at: datetime) -> datetime:
    """SQLite gives back naive UTC datetimes."""
    return at if at.tzinfo is not None else at.replace(tzinfo=UTC)


class Accounts:
    """The account half of :class:`~.service.ProfileService` (its base class)."""

    db: Database
    hasher: Hasher | None = None
    """The password hashes' threads (the composition root gives one; else made on first use)."""
    token_idle: timedelta | None = timedelta(days=30)
    """A token unused this long stops working (``DICECUP_PROFILE_TOKEN_IDLE_DAYS``)."""

    # provided by ProfileService
    async def _view(self, session: AsyncSession, profile: Profile, private: bool = False) -> JSON:
        raise NotImplementedError

    @staticmethod
    async def _profile(session: AsyncSession, profile_id: str) -> Profile:
        raise NotImplementedError

    def _hashes(self) -> Hasher:
        if self.hasher is None:
            self.hasher = Hasher()
        return self.hasher

    # -- tokens -------------------------------------------------------------------------------

    @staticmethod
    def _add_token(session: AsyncSession, profile_id: str, kind: str) -> str:
        token = room_secrets.new_token()
        session.add(
            ProfileToken(
                profile_id=profile_id,
                token_hash=room_secrets.token_hash(token),
                kind=kind,
                created_at=utcnow(),
                last_used_at=utcnow(),
            )
        )
        return token

    async def authenticate(self, token: str | None) -> ProfileAuth:
        """The profile a token stands for; ``unauthorized`` for none, an unknown one or one idle too long."""
        if not token:
            raise DomainError("unauthorized", "this needs a profile token (Authorization: Bearer ...)")
        async with self.db.read() as session:
            row = (
                await session.execute(
                    select(ProfileToken.id, ProfileToken.profile_id, ProfileToken.last_used_at).where(
                        ProfileToken.token_hash == room_secrets.token_hash(token)
                    )
                )
            ).first()
        if row is None:
            raise DomainError("unauthorized", "unknown profile token")
        now = utcnow()
        used = _aware(row.last_used_at) if row.last_used_at is not None else now
        if self.token_idle is not None and now - used > self.token_idle:
            async with self.db.write() as session:
                await session.execute(delete(ProfileToken).where(ProfileToken.id == row.id))
            raise DomainError("unauthorized", "this profile token was not used for too long: sign in again")
        if now - used > TOUCH_EVERY:
            async with self.db.write() as session:
                await session.execute(update(ProfileToken).where(ProfileToken.id == row.id).values(last_used_at=now))
        return ProfileAuth(row.profile_id, row.id)

    async def sign_out(self, auth: ProfileAuth) -> None:
        async with self.db.write() as session:
            await session.execute(delete(ProfileToken).where(ProfileToken.id == auth.token_id))

    async def sign_out_everywhere(self, auth: ProfileAuth) -> int:
        """End every token of the profile, this one included: how many."""
        async with self.db.write() as session:
            ended = await session.execute(delete(ProfileToken).where(ProfileToken.profile_id == auth.profile_id))
        return int(ended.rowcount or 0)  # type: ignore[attr-defined]

    # -- credentials ----------------------------------------------------------------------------

    async def set_credentials(
        self, auth: ProfileAuth, username: str, password: str, current_password: str | None
    ) -> JSON:
        """Give the profile a username and password (replacing any it had;
        then ``current_password`` must be the one it had: ``wrong_password``
        otherwise). The username is checked first (``username_taken``), before
        anything is hashed. Every other token of the profile stops working."""
        key = normalize_username(username)
        async with self.db.read() as session:
            taken = (
                await session.execute(select(ProfileCredential.profile_id).where(ProfileCredential.username == key))
            ).scalar_one_or_none()
            had = (
                await session.execute(
                    select(ProfileCredential.password_hash).where(ProfileCredential.profile_id == auth.profile_id)
                )
            ).scalar_one_or_none()
        if taken is not None and taken != auth.profile_id:
            raise DomainError("username_taken", "that username is taken")
        if had is not None:
            if not current_password:
                raise DomainError("wrong_password", "changing the username or password needs the current password")
            if not await self._hashes().verify(had, current_password):
                raise DomainError("wrong_password", "the current password is not right")
        hashed = await self._hashes().hash(password)
        try:
            async with self.db.write() as session:
                profile = await self._profile(session, auth.profile_id)
                taken = (
                    await session.execute(select(ProfileCredential.profile_id).where(ProfileCredential.username == key))
                ).scalar_one_or_none()
                if taken is not None and taken != profile.id:
                    raise DomainError("username_taken", "that username is taken")
                credential = await session.get(ProfileCredential, profile.id)
                if credential is None:
                    session.add(ProfileCredential(profile_id=profile.id, username=key, password_hash=hashed))
                else:
                    credential.username, credential.password_hash, credential.updated_at = key, hashed, utcnow()
                await session.execute(
                    delete(ProfileToken).where(ProfileToken.profile_id == profile.id, ProfileToken.id != auth.token_id)
                )
                await session.flush()
                return await self._view(session, profile, private=True)
        except IntegrityError:  # the username taken by a profile racing for it
            raise DomainError("username_taken", "that username is taken") from None

    async def sign_in(self, username: str, password: str) -> tuple[JSON, str] | None:
        """A new session token for the profile with these credentials, or
        ``None`` (the caller counts the failure). An unknown username costs a
        dummy hash's verification: as long as a wrong password."""
        key = normalize_username(username)
        found = None
        if possible_username(key):  # one no profile can have (NUL, say) is never looked up
            async with self.db.read() as session:
                found = (
                    await session.execute(
                        select(ProfileCredential.profile_id, ProfileCredential.password_hash).where(
                            ProfileCredential.username == key
                        )
                    )
                ).first()
        ok = await self._hashes().verify(None if found is None else found.password_hash, password)
        if not ok or found is None:
            return None
        async with self.db.write() as session:
            profile = await self._profile(session, found.profile_id)
            token = self._add_token(session, profile.id, "session")
            await session.flush()
            sessions = (
                (
                    await session.execute(
                        select(ProfileToken.id)
                        .where(ProfileToken.profile_id == profile.id, ProfileToken.kind == "session")
                        .order_by(ProfileToken.id.desc())
                        .offset(MAX_SESSIONS)
                    )
                )
                .scalars()
                .all()
            )
            if sessions:
                await session.execute(delete(ProfileToken).where(ProfileToken.id.in_(list(sessions))))
            view = await self._view(session, profile, private=True)
        return view, token
