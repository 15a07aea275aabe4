"""What the tests share: the CLI run in process, brute forces written from the definitions,
hypothesis strategies, and readers of what explorer writes. Fixtures live in conftest.py."""
