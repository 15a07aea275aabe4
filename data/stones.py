import explorer
@explorer.heap_game(example="10")
def stones(n):
    yield from (n - k for k in (1, 2, 4) if k <= n)
    yield from ((a, n - a) for a in range(1, n) if a < n - a)
