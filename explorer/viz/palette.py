"""The colours of values and the words for outcomes, shared by every page, plot and notebook view.

Plain constants and two small functions, importing only the solver's outcome rule: pages, plots,
notebook views and the command line all say "P" and paint Grundy values the same way from here.
"""

from __future__ import annotations

from explorer.games.convention import MISERE
from explorer.solver import outcome

#: Fill of P-positions (Grundy value 0): a dark red no N-position uses.
P_COLOUR = "#b2182b"
#: Fill of a P-position under the mouse.
P_HOVER = "#d6604d"
#: Fills of N-positions by Grundy value 1, 2, ... (ColorBrewer Set3 without its red).
N_COLOURS = (
    "#8dd3c7",
    "#ffffb3",
    "#bebada",
    "#80b1d3",
    "#fdb462",
    "#b3de69",
    "#fccde5",
    "#bc80bd",
    "#ccebc5",
    "#ffed6f",
)
#: Fill of N-positions whose value is past the palette (the label still gives the value).
HIGH_COLOUR = "#d9d9d9"
#: Fill of states whose value is not known (a stored build that was stopped).
UNSOLVED_COLOUR = "#ffffff"
#: Fill of D-positions (draws, in games with cycles: always of value ∞(K) with 0 not in K).
DRAW_COLOUR = "#9e9ac8"
#: Fill of N-positions of infinite value ∞(K), 0 in K (games with cycles).
INFINITE_COLOUR = "#fe9929"
#: Fill of N-positions in misère play (drawn by outcome: misère values do not add up).
MISERE_N_COLOUR = "#a6cee3"
#: N-positions where one colour stands for them all (points of a value plot, whose height is the
#: value), beside `P_COLOUR`.
N_MARK = "#2c7fb8"
#: Bars of states counted by depth, and the marks of a plot's other lines.
DEPTH_COLOUR = "#80b1d3"
GUIDE_COLOUR = "#777777"
#: Border of the state a drawing starts from.
START_BORDER = "#1f4e9e"
#: Moves that are not winning moves.
MOVE_COLOUR = "#a0a0a0"
#: Borders: of P-positions (and of any state under the mouse), of N-positions.
P_BORDER = "#000000"
N_BORDER = "#555555"
#: Text: on P-positions, elsewhere.
P_TEXT = "#ffffff"
TEXT = "#222222"

#: What each outcome means, as every view words it.
OUTCOMES = {
    "P": "P (the player to move loses)",
    "N": "N (the player to move wins)",
    "D": "D (a draw: neither player can force a win)",
}
#: The last line of an explanation: the outcome and how to keep it.
VERDICTS = {
    "P": "P: the player to move loses",
    "N": "N: the player to move wins by moving to a position of value 0",
    "D": "D: a draw; the player to move keeps it by moving to another draw (D)",
}


def game_title(spec: str, convention: str | None) -> str:
    """A game's spec as a title, marked when it is played by the misère convention.

    Examples
    --------
    >>> game_title("nim", "normal"), game_title("nim", "misere")
    ('nim', 'nim (misère)')
    """
    return spec + (" (misère)" if convention == MISERE else "")


def grundy_colour(value: int) -> str:
    """The fill of a state with this Grundy value.

    Examples
    --------
    >>> grundy_colour(0) == P_COLOUR, grundy_colour(1), grundy_colour(99) == HIGH_COLOUR
    (True, '#8dd3c7', True)
    """
    if outcome(value) == "P":
        return P_COLOUR
    return N_COLOURS[value - 1] if value <= len(N_COLOURS) else HIGH_COLOUR


def outcome_text(outcome: str | None) -> str:
    """The outcome ``"P"``, ``"N"``, ``"D"`` (a draw, in a loopy game) or None (not solved) in
    words.

    Examples
    --------
    >>> outcome_text("P"), outcome_text(None)
    ('P (the player to move loses)', 'unknown (not solved)')
    """
    return "unknown (not solved)" if outcome is None else OUTCOMES[outcome]
