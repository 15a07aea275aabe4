"""Where a row is written: the game and build rows (`records`), the per-game counts (`counts`),
value sequences, stored findings and the shared part values."""
