"""PLACEHOLDER: being written; replaced by the real module."""

from __future__ import annotations

from explorer.errors import SpecError
from explorer.games.base import Game


class DagGame(Game):
    family = "dag"
    position_syntax = "?"
    example = ("dag", "?")

    @classmethod
    def from_parameters(cls, parameters: str | None) -> Game:
        raise SpecError("dag is not written yet")
