"""The database schema: the SQLAlchemy models of every table (`models`), the packed form of a
state's moves in its row with the views that read it as `edges` (`packing`), and the Alembic
glue that creates and upgrades it (`migrations`)."""
