"""The database schema: the SQLAlchemy models of every table (`models`) and the Alembic glue
that creates and upgrades it (`migrations`)."""
