"""The SQL of each table in one module (``states``, ``edges``): named statements, their columns
taken from the models (`explorer.storage.schema.models`), that the reads and writes of one stored
game call instead of writing SQL of their own. Dialect differences stay behind the dialect and
writer classes (`explorer.storage.backends`): a backend chooses the statement, these modules hold
its text.
The one other module with SQL on these tables is `explorer.build.verify_checks`, whose checks are
written again from the definitions on purpose (``tests/test_table_statements.py`` keeps it so).

Examples
--------
>>> from explorer import open_database
>>> from explorer.storage.tables import edges, states
>>> db = open_database("sqlite://")
>>> nim = db.game("nim")
>>> _ = nim.build("1,2")
>>> with db.engine.connect() as conn:
...     g = nim.row().id
...     root = conn.execute(states.BY_KEY, {"g": g, "k": "1,2"}).one()
...     conn.execute(edges.count_at("src"), {"g": g, "s": root.id}).scalar_one()
3
>>> db.close()
"""
