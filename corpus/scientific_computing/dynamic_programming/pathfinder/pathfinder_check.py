"""pathfinder's independent check: Rodinia's row loop with explicit bounds tests over Python
integers; and, on tiny grids, the definition itself: the minimum over every path (each a
sequence of column moves -1, 0, +1 that stays on the grid) of the sum of its cells."""

import itertools

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def rodinia_loops(wall):
    rows, cols = len(wall), len(wall[0])
    src = list(wall[0])
    for t in range(1, rows):
        dst = [0] * cols
        for n in range(cols):
            best = src[n]
            if n > 0:
                best = min(best, src[n - 1])
            if n < cols - 1:
                best = min(best, src[n + 1])
            dst[n] = wall[t][n] + best
        src = dst
    return src


@each(sizes=[(1, 1), (1, 7), (9, 1), (6, 2), (40, 3), (200, 301)], seed=SEEDS)
def check_against_loops(kernel, sizes, seed):
    ROWS, COLS = sizes
    v, out = run(kernel, {"ROWS": ROWS, "COLS": COLS}, seed)
    wall = v["wall"]
    assert wall.min() >= 0 and wall.max() <= 9
    expected = np.array(rodinia_loops(wall.tolist()), dtype=np.int32)
    np.testing.assert_array_equal(out["result"], expected)
    if ROWS * COLS > 1000:
        assert len(np.unique(expected)) > 3
        assert_judged_like_an_oracle(kernel, out, {"result": expected})


@each(sizes=[(5, 4), (7, 6), (2, 9)], seed=SEEDS)
def check_against_all_paths(kernel, sizes, seed):
    ROWS, COLS = sizes
    v, out = run(kernel, {"ROWS": ROWS, "COLS": COLS}, seed)
    wall = v["wall"].tolist()
    best = [None] * COLS
    for start in range(COLS):
        for moves in itertools.product((-1, 0, 1), repeat=ROWS - 1):
            c, cost = start, wall[0][start]
            for t, m in enumerate(moves, 1):
                c += m
                if not 0 <= c < COLS:
                    break
                cost += wall[t][c]
            else:
                if best[c] is None or cost < best[c]:
                    best[c] = cost
    np.testing.assert_array_equal(out["result"], best)
