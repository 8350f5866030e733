"""Players who come back (issue 14): profiles and their tokens, sign-in with a
username and password, seats linked to profiles, results that outlive rooms,
stats, personal bests, leaderboards, OpenSkill ratings, history, export and
deletion. The rooms layer knows only ``players.profile_id``; everything else
is here."""

from .service import ProfileAuth, ProfileService

__all__ = ["ProfileAuth", "ProfileService"]
