"""The serving process's garbage collector: the start-up heap set aside, the youngest generation collected less often.

A serving process holds a large heap that lives as long as it does (SQLAlchemy, pydantic, the SDK, the compiled
schemas, the app), and every full collection walked all of it: under load those collections were the slowest calls'
pauses (p99 of a query 121 ms with the defaults, 45 ms settled; bench.compare, 16 connections). Once the server has
started, everything alive is frozen out of the collector's sight (gc.freeze), and the youngest generation is
collected every 10,000 allocations instead of 700, which the calls' short-lived garbage crosses often.
"""

import gc

# (youngest, middle, oldest): each older generation is collected once per that many collections of the one before.
THRESHOLDS = (10_000, 50, 100)


def settle() -> None:
    """Collect what start-up left, freeze what is alive, and set the thresholds above (once a server has started)."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*THRESHOLDS)
