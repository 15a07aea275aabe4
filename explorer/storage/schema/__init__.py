"""The database schema: the SQLAlchemy models of every table (`models`), and the packed form of
a state's moves in its row with the views that read it as `edges` (`packing`)."""
