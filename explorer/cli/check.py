"""``explorer check``: a self-test of a game definition, and of a claim about its values."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import click

from explorer.cli.common import (
    MAX_STATES_IN_MEMORY,
    AsciiIntRange,
    console,
    json_option,
    plural,
    print_json,
    visible,
    working,
)
from explorer.errors import ExplorerError

if TYPE_CHECKING:
    from explorer.analysis.checks import ClaimReport, GameReport


@click.command("check")
@click.argument("spec")
@click.argument("position", required=False)
@click.option("--p", "p_claim", metavar="EXPR", help="A claim true exactly at the P-positions.")
@click.option("--value", "value_claim", metavar="EXPR", help="A claim equal to the Grundy value.")
@click.option(
    "--upto",
    type=AsciiIntRange(min=0, max=1_000_000),
    default=None,
    help="Check the claim on the one-parameter positions 0..N (single heaps).",
)
@click.option(
    "--max-states",
    type=AsciiIntRange(min=1, max=MAX_STATES_IN_MEMORY),
    default=None,
    help="Most positions explored from the start (default 20,000).",
)
@json_option(
    "one object; the game's check: game, start, positions, moves, complete, acyclic, "
    "decompositions, problems (each check, position, detail), ok; a claim's (--p, --value): "
    "game, claim, kind, positions, failures, counterexamples (each position, value, claim, "
    "winning_move), holds"
)
def check_command(
    spec: str,
    position: str | None,
    p_claim: str | None,
    value_claim: str | None,
    upto: int | None,
    max_states: int | None,
    as_json: bool,
) -> None:
    """Check the game SPEC from POSITION (its example by default), or a claim about it.

    Without a claim: every reachable position's text parses back to it, the rules give the
    same moves when asked twice, a game not declared loopy has no cycle, and positions that
    split into parts have the XOR of the parts' values. Exit status 1 when a check fails.

    With --p or --value: the claim, a Python expression in p (the position), n (one heap),
    a, b, c, ... (the parts of a tuple), is checked on every position reachable from
    POSITION, or on 0..N with --upto; the first counterexamples are printed with their
    values and a winning move. Exit status 0 when it holds, 1 when it does not.

    \b
    Examples:
      explorer check py:mine.py
      explorer check nim 3,4,5 --p "a ^ b ^ c == 0"
      explorer check "bash:3" --value "n % 4" --upto 100
    """
    from explorer.analysis.checks import DEFAULT_CHECK_STATES, check_claim, check_game
    from explorer.games import load_game

    if p_claim is not None and value_claim is not None:
        raise click.UsageError("give one claim: --p or --value")
    if position is not None and upto is not None:
        raise click.UsageError(
            "give POSITION (the positions reachable from it) or --upto N (the positions "
            "0..N), not both"
        )
    game = load_game(spec)
    limit = max_states or DEFAULT_CHECK_STATES
    if p_claim is None and value_claim is None:
        if upto is not None:
            raise click.UsageError("--upto is for a claim (--p or --value)")
        with working(f"checking {visible(game.spec)}", enabled=not as_json):
            report = check_game(game, position, max_states=limit)
        if as_json:
            print_json(report.to_dict())
        else:
            _print_game_check(report)
        if not report.ok:
            raise ExplorerError(f"{plural(len(report.problems), 'problem')} found in {game.spec}")
        if not as_json:
            console.print("ok: text round trip, deterministic moves, acyclicity, sums")
        return
    kind: Literal["p", "value"] = "p" if p_claim is not None else "value"
    expression = p_claim if p_claim is not None else value_claim
    assert expression is not None
    with working(f"checking the claim on {visible(game.spec)}", enabled=not as_json):
        claim = check_claim(game, expression, kind, position=position, upto=upto, max_states=limit)
    if as_json:
        print_json(claim.to_dict())
    else:
        _print_claim(claim, expression, kind)
    if not claim.holds:
        raise ExplorerError(
            f"the claim fails at {claim.failures:,} of {plural(claim.positions, 'position')}"
        )
    if not as_json:
        console.print("holds")


def _print_game_check(report: GameReport) -> None:
    """The game's check as text: what was explored, then the first problems."""
    more = "" if report.complete else " (the first ones: raise --max-states)"
    console.print(f"game          {visible(report.game)}")
    console.print(f"from          {visible(report.start)}")
    console.print(f"positions     {report.positions:,}{more}, {report.moves:,} moves")
    cycles = "none" if report.acyclic else "yes (declared)" if report.ok else "yes"
    console.print(f"cycles        {cycles}")
    console.print(f"sums checked  {report.decompositions}")
    for problem in report.problems[:20]:
        console.print(f"  {problem.check}: {visible(problem.position)}: {visible(problem.detail)}")


def _print_claim(claim: ClaimReport, expression: str, kind: Literal["p", "value"]) -> None:
    """A claim's check as text: what was checked, then the counterexamples."""
    what = "true exactly at P-positions" if kind == "p" else "the Grundy value"
    console.print(f"claim     {visible(expression)} is {what}")
    console.print(f"checked   {claim.positions:,} positions of {visible(claim.game)}")
    for case in claim.counterexamples:
        move = "none" if case.winning_move is None else visible(case.winning_move)
        console.print(
            f"  counterexample {visible(case.position)}: value {case.value}, claim "
            f"{visible(repr(case.claim))}, winning move {move}"
        )


COMMANDS = [check_command]
