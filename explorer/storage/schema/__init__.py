"""The database schema: the SQLAlchemy models of every table (`models`)."""
