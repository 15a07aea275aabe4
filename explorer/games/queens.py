"""PLACEHOLDER: being written; replaced by the real module."""

from __future__ import annotations

from explorer.errors import SpecError
from explorer.games.base import Game


class Queens(Game):
    family = "queens"
    position_syntax = "?"
    example = ("queens", "?")

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Game:
        raise SpecError("queens is not written yet")
