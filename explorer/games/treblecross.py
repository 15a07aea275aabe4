"""PLACEHOLDER: being written; replaced by the real module."""

from __future__ import annotations

from explorer.errors import SpecError
from explorer.games.base import Game


class Treblecross(Game):
    family = "treblecross"
    position_syntax = "?"
    example = ("treblecross", "?")

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Game:
        raise SpecError("treblecross is not written yet")
