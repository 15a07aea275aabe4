"""`Convention`, the play convention: normal play (the player who cannot move loses) or misère
play (the player who moves last loses), as results, stored games and addresses name it."""

from __future__ import annotations

from enum import StrEnum


class Convention(StrEnum):
    """Normal or misère play; a member is its text (``"normal"``, ``"misere"``), so it is
    stored, compared and written to JSON as that text.

    Examples
    --------
    >>> Convention("misere") is Convention.MISERE, Convention.MISERE == "misere"
    (True, True)
    >>> import json; json.dumps({"convention": Convention.NORMAL})
    '{"convention": "normal"}'
    """

    NORMAL = "normal"
    MISERE = "misere"

    @classmethod
    def of(cls, misere: object) -> Convention:
        """The convention a ``--misere`` flag (true or false) names.

        Examples
        --------
        >>> Convention.of(True), Convention.of(False)
        (<Convention.MISERE: 'misere'>, <Convention.NORMAL: 'normal'>)
        """
        return cls.MISERE if misere else cls.NORMAL


#: The members by their usual names.
NORMAL = Convention.NORMAL
MISERE = Convention.MISERE
