"""DAG games named by their resolved file and graph fingerprint; builds record their process

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-23

- ``games.fingerprint``: the SHA-256 of a DAG game's graph. DAG games stored with their path as
  typed (``dag:game.json``) get the fingerprint of their stored graph, and move to their
  resolved path when that path, seen from the folder this upgrade runs in, is a file holding
  exactly that graph. The others keep their spec (found as typed, and moved the first time the
  same file is imported again): a folder cannot be guessed, and guessing could confuse two
  files of the same name.
- ``builds.host`` and ``builds.pid``: the process that wrote a build, so that a ``running``
  build whose process is gone shows as interrupted; ``failed`` joins the build statuses.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

import numpy as np
import sqlalchemy as sa
from alembic import op

from explorer.errors import ExplorerError
from explorer.games.graph_files import read_graph_file
from explorer.storage.rows.records import edge_arrays, graph_fingerprint

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

OLD_STATUSES = "status IN ('running', 'stopped', 'complete', 'interrupted')"
NEW_STATUSES = "status IN ('running', 'stopped', 'complete', 'interrupted', 'failed')"


def upgrade() -> None:
    with op.batch_alter_table("games") as batch:
        batch.add_column(sa.Column("fingerprint", sa.String(length=64), nullable=True))
    if op.get_context().dialect.name == "sqlite":
        _rebuild_builds(NEW_STATUSES, owners=True)
    else:
        op.add_column("builds", sa.Column("host", sa.Text(), nullable=True))
        op.add_column("builds", sa.Column("pid", sa.Integer(), nullable=True))
        op.drop_constraint(op.f("ck_builds_status"), "builds", type_="check")
        op.create_check_constraint(op.f("ck_builds_status"), "builds", NEW_STATUSES)
    _dag_games_forward(op.get_bind())


def downgrade() -> None:
    op.execute("UPDATE builds SET status = 'interrupted' WHERE status = 'failed'")
    if op.get_context().dialect.name == "sqlite":
        _rebuild_builds(OLD_STATUSES, owners=False)
    else:
        op.drop_constraint(op.f("ck_builds_status"), "builds", type_="check")
        op.create_check_constraint(op.f("ck_builds_status"), "builds", OLD_STATUSES)
        op.drop_column("builds", "pid")
        op.drop_column("builds", "host")
    # natively (SQLite 3.35+): a batch copy of games would break the views that read it
    op.execute("ALTER TABLE games DROP COLUMN fingerprint")


BUILD_COLUMNS = (
    "id, game_id, kind, root, status, started_at, finished_at, states_new, states_reused, "
    "edges_new, values_computed, max_states, method"
)


def _rebuild_builds(statuses: str, *, owners: bool) -> None:
    """SQLite changes a CHECK constraint only by copying the table. Not by Alembic's batch
    copy, which fills the new table under another name: dropping the old one counts every
    state pointing at a build as a broken foreign key, and the commit fails. Here the rows wait
    in a plain copy while ``builds`` is dropped and created again; inserting them back under
    that name mends the states' references before the commit checks them."""
    op.execute("PRAGMA defer_foreign_keys = ON")  # checked at the commit; reset by it
    op.execute("CREATE TABLE builds_copy AS SELECT * FROM builds")
    op.execute("DROP TABLE builds")
    owner_columns = (
        [sa.Column("host", sa.Text(), nullable=True), sa.Column("pid", sa.Integer(), nullable=True)]
        if owners
        else []
    )
    op.create_table(
        "builds",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("game_id", sa.Integer(), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("root", sa.Text(), nullable=True),
        sa.Column("status", sa.String(length=20), nullable=False),
        sa.Column("started_at", sa.DateTime(), nullable=False),
        sa.Column("finished_at", sa.DateTime(), nullable=True),
        sa.Column("states_new", sa.Integer(), nullable=False),
        sa.Column("states_reused", sa.Integer(), nullable=False),
        sa.Column("edges_new", sa.Integer(), nullable=False),
        sa.Column("values_computed", sa.Integer(), nullable=False),
        sa.Column("max_states", sa.Integer(), nullable=True),
        sa.Column("method", sa.Text(), nullable=False),
        *owner_columns,
        sa.CheckConstraint(statuses, name=op.f("ck_builds_status")),
        sa.ForeignKeyConstraint(["game_id"], ["games.id"], name=op.f("fk_builds_game_id_games")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_builds")),
    )
    op.execute(f"INSERT INTO builds ({BUILD_COLUMNS}) SELECT {BUILD_COLUMNS} FROM builds_copy")
    op.execute("DROP TABLE builds_copy")
    op.create_index(op.f("ix_builds_game_id"), "builds", ["game_id"], unique=False)


def _dag_games_forward(conn: sa.Connection) -> None:
    games = conn.execute(sa.text("SELECT id, spec FROM games WHERE family = 'dag'")).all()
    taken = {spec for (spec,) in conn.execute(sa.text("SELECT spec FROM games"))}
    for game_id, spec in games:
        fingerprint = _stored_fingerprint(conn, game_id)
        path = spec.partition(":")[2]
        values: dict[str, object] = {"g": game_id, "f": fingerprint}
        resolved = os.path.realpath(path)
        if not os.path.isabs(path) and f"dag:{resolved}" not in taken:
            if _file_fingerprint(resolved) == fingerprint:
                values.update(spec=f"dag:{resolved}", parameters=resolved)
                taken.add(f"dag:{resolved}")
        if "spec" in values:
            conn.execute(
                sa.text("UPDATE games SET fingerprint = :f, spec = :spec, parameters = :parameters "
                        "WHERE id = :g"),
                values,
            )  # fmt: skip
        else:
            conn.execute(sa.text("UPDATE games SET fingerprint = :f WHERE id = :g"), values)


def _stored_fingerprint(conn: sa.Connection, game_id: int) -> str:
    """The fingerprint of a stored DAG game: its states in id order, its edges."""
    rows = conn.execute(
        sa.text("SELECT id, key FROM states WHERE game_id = :g ORDER BY id"), {"g": game_id}
    ).all()
    ids = np.array([r[0] for r in rows], dtype=np.int64)
    edges = conn.execute(
        sa.text("SELECT src, dst FROM edges WHERE game_id = :g"), {"g": game_id}
    ).all()
    pairs = np.array(edges, dtype=np.int64).reshape(-1, 2)
    # ids as positions in the list of states (an import numbers them 0, 1, ... already)
    src, dst = np.searchsorted(ids, pairs[:, 0]), np.searchsorted(ids, pairs[:, 1])
    return graph_fingerprint([r[1] for r in rows], src, dst)


def _file_fingerprint(path: str) -> str | None:
    """The fingerprint of the graph in a file, or None if it is not a readable graph file."""
    if not os.path.isfile(path):
        return None
    try:
        vertices, edges = read_graph_file(path)
    except ExplorerError:
        return None
    return graph_fingerprint(vertices, *edge_arrays(vertices, edges))
