"""Graph files written: a game graph as GraphML, GEXF, JSON or CSV (`writing`).

It knows nothing of the database: `explorer.storage.query.export` streams stored rows into
`writing`. Reading a graph file is the rules' (`explorer.games.graph_files`, for ``dag:`` and
``graph:`` games).
"""
