"""pathfinder: the cheapest top-to-bottom paths through a grid of costs, one step down and at
most one column sideways per row (Rodinia pathfinder)."""

import numpy as np


def initialize(rng, ROWS, COLS):
    # Rodinia's grid: costs 0..9 drawn uniformly.
    return {"wall": rng.integers(0, 10, size=(ROWS, COLS)).astype(np.int32)}


def pathfinder(wall, result, ROWS, COLS):
    # result[c] after row t: the cheapest cost of a path through rows 0..t ending at (t, c),
    # each step moving to the column left of, below or right of the last:
    #   result[c] = wall[t, c] + min(prev[c - 1], prev[c], prev[c + 1])   (the ones that exist).
    # The rows are a recurrence; the columns of one row are independent.
    prev = np.empty((COLS,), dtype=np.int32)
    result[:] = wall[0, :]
    for t in range(1, ROWS):
        prev[:] = result
        if COLS > 1:
            result[0] = wall[t, 0] + min(prev[0], prev[1])
            result[1:COLS - 1] = wall[t, 1:COLS - 1] + np.minimum(np.minimum(prev[0:COLS - 2], prev[1:COLS - 1]),
                                                                  prev[2:COLS])
            result[COLS - 1] = wall[t, COLS - 1] + min(prev[COLS - 2], prev[COLS - 1])
        else:
            result[0] = wall[t, 0] + prev[0]
