"""PLACEHOLDER: being written; replaced by the real module."""

from __future__ import annotations

from explorer.errors import SpecError
from explorer.games.base import Game


class CoinTurning(Game):
    family = "turning"
    position_syntax = "?"
    example = ("turning", "?")

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Game:
        raise SpecError("turning is not written yet")
