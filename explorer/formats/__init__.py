"""Graph files: reading a game graph from one (`reading`) and writing one (`writing`).

Neither module knows of the database: `explorer.storage.query.export` streams stored rows into
`writing`.
"""
