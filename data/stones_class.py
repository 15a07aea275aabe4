"""The example game as a subclass of explorer.Game: parse, format and successors."""

import explorer


class Stones(explorer.Game):
    position_syntax = "heap sizes, e.g. 3,5"
    example = ("", "10")

    def parse(self, text):
        return tuple(sorted(int(h) for h in text.split(",") if int(h)))

    def format(self, position):
        return ",".join(map(str, position)) or "0"

    def successors(self, position):
        for i, h in enumerate(position):
            rest = position[:i] + position[i + 1 :]
            options = [(h - k,) for k in (1, 2, 4) if k <= h]
            options += [(a, h - a) for a in range(1, h) if a < h - a]
            for option in options:
                yield tuple(sorted(rest + tuple(x for x in option if x)))
