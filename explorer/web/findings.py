"""The stored patterns and misère quotient of a game, as the game page shows them: read at each
request (they are small, and a `patterns` or `quotient` run changes them without a build)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from explorer.storage.rows.findings import pattern_status, pattern_text

if TYPE_CHECKING:
    from explorer.storage import StoredGame

#: Largest quotient whose multiplication table the page shows.
TABLE_SIZE = 32
#: Heaps whose Φ the page shows (a quotient may be of a million heaps).
PHI_SHOWN = 1_000


def findings(stored: StoredGame) -> dict[str, Any]:
    """``{"patterns": [...], "quotient": ... or None}`` of a stored game, ready for the page.

    Examples
    --------
    >>> from explorer import open_database
    >>> from explorer.analysis.quotient import misere_quotient
    >>> from explorer import load_game
    >>> db = open_database("sqlite://")
    >>> db.game("nim").save_quotient(misere_quotient(load_game("nim"), 1))
    >>> findings(db.game("nim"))["quotient"]["phi"]
    [(0, '1'), (1, 'a')]
    >>> db.close()
    """
    patterns = [
        {
            "kind": p["kind"],
            "text": pattern_text(p),
            "status": p["status"],
            "status_text": pattern_status(p),
        }
        for p in stored.patterns()
    ]
    q = stored.quotient()
    if q is None:
        return {"patterns": patterns, "quotient": None}
    names = q.elements
    quotient = {
        "max_heap": q.max_heap,
        "presentation": q.presentation,
        "size": q.size,
        "p_size": q.p_size,
        "tame": q.tame,
        "p": [names[x] for x in q.p],
        "names": names,
        "rows": (
            [(names[i], [names[x] for x in row]) for i, row in enumerate(q.table)]
            if q.size <= TABLE_SIZE
            else None
        ),
        "phi": [(n, names[x]) for n, x in enumerate(q.phi[:PHI_SHOWN])],
        "period": q.period,
        "preperiod": q.preperiod,
        "period_proven": q.period_proven,
    }
    return {"patterns": patterns, "quotient": quotient}
