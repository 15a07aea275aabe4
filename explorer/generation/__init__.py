"""Generation: the game graph a start position reaches, as NetworkX (`graph`) or as numbered
arrays for builds (`expansion`, with `sorted_runs` for codes kept in sorted arrays)."""
