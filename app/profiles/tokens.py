"""What a checked profile token stands for, and usernames' one form."""

from __future__ import annotations

import re
from dataclasses import dataclass

_USERNAME = re.compile(r"[a-z0-9_.-]{3,32}")
"""What a stored (case-folded) username can be: the pattern of ``Credentials``."""


@dataclass(frozen=True)
class ProfileAuth:
    """A checked profile token: whose it is, and which token row (to sign out)."""

    profile_id: str
    token_id: int


def normalize_username(username: str) -> str:
    return username.strip().casefold()


def possible_username(key: str) -> bool:
    """Whether a normalized username is one a profile could have."""
    return _USERNAME.fullmatch(key) is not None
