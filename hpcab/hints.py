"""The hints ladder (docs/agent_tools.md): what an agent may be told about a kernel beyond its
task, in three steps drawn from its manifest, so that an arm can set how much help it gives
(`hints: 0..3`) and an observation records it.

    1  the kernel's class: a loop's TSVC category, a scientific kernel's dwarf, an ML
       kernel's KernelBench level (with its tags);
    2  what it isolates: the loop's optimisation (its manifest's tsvc.optimization), or the
       roofline bound at the public case (flops per byte, from its roofline block);
    3  a worked transformation: the one its first matching tag calls for, written out.

Each level includes the ones below it. The judge serves the ladder with the task (GET /task,
field hints), the same for every agent; which rungs an agent reads is its arm's choice.
"""

from __future__ import annotations

from hpcab import expr
from hpcab.kernel import Kernel

LEVELS = 3
# Arithmetic intensity (flop/byte) below which a kernel is memory-bound on any current CPU
# (a core streams some 10-20 GB/s and computes some 10-100 Gflop/s: a balance of 1-10), and
# above which it is compute-bound on all of them.
MEMORY_BOUND_BELOW = 1.0
COMPUTE_BOUND_ABOVE = 10.0

# Worked transformations, by tag, in the order they are looked for: the first tag of the
# kernel's that has one gives its third rung.
TRANSFORMATIONS: tuple[tuple[str, str], ...] = (
    ("gemm", "Block for the caches and registers: loop order i-k-j so the inner loop streams a row of B and "
             "of C (unit stride, vectorisable), then tile i, j and k so a tile of B stays in L2 while it is "
             "reused (e.g. 64 x 256 x 256 doubles), and keep a small block of C (e.g. 4 x 8) in registers "
             "across the k loop: for (k) { b = B[k][j:j+8]; c0 += A[i][k] * b; c1 += A[i+1][k] * b; ... }."),
    ("fusion", "Fuse the passes: compute each output element once, applying the epilogue (bias, activation, "
               "scale, normalisation statistics) while the value is still in a register, instead of writing "
               "an intermediate array and reading it back: for (i) { h = dot(x[i], w); out[i] = act(h + b) * s; }."),
    ("convolution", "Lower to a matrix product (im2col, or loop over the kernel window outermost and the "
                    "output pixels innermost) so the innermost loop runs over contiguous output channels or "
                    "pixels with unit stride; hoist the filter weights out of the inner loop and block over "
                    "output channels so each input value loaded is used by several filters."),
    ("stencil", "Sweep in the array's storage order with the innermost loop unit-stride, so each point's "
                "neighbours are reused from cache and the loop vectorises; for several time steps, block in "
                "space (and in time, skewing the tiles) so a tile is updated several times while it is in cache."),
    ("reduction", "Split the accumulator: s0 += a[i]; s1 += a[i+1]; ... (or an array of 8-16 partial sums) "
                  "breaks the loop-carried dependence on one register so the loop vectorises and pipelines; "
                  "combine the partial sums at the end. It reassociates the sum: within the tolerance for "
                  "floating point, exact for integers."),
    ("recurrence", "A first-order recurrence x[i] = a[i] * x[i-1] + b[i] cannot run its steps at once: keep "
                   "the carried value in a register, hoist everything that does not depend on it out of the "
                   "chain (compute a[i], b[i] terms in a vectorised pass first), and where the operation is "
                   "associative, scan in blocks: local scans in parallel, then a pass that adds each block's carry."),
    ("scan", "Prefix sums: scan blocks of the array independently (vectorised within a block), then add "
             "each block's running total to the next block; a two-pass blocked scan reads the data twice but "
             "each pass vectorises."),
    ("if_conversion", "Turn the branch into a select: t = cond ? x : y computed for every element (both sides "
                      "evaluated, no side effects) lets the compiler vectorise with masked blends; move "
                      "conditions that do not change inside the loop out of it (loop unswitching)."),
    ("loop_interchange", "Interchange the loops so the innermost index walks memory with unit stride (for a "
                         "row-major a[i][j], j innermost), when the dependences allow: a dependence carried by "
                         "the outer loop with distance (1, 0) permits it, one with (1, -1) does not."),
    ("strided", "Make the innermost access unit-stride: interchange loops, or copy the strided data once "
                "into a contiguous buffer (packing) when it is reused, so loads are full cache lines and vectors."),
    ("indirect_access", "Gather-bound: sort or bucket the indices when they are reused so consecutive accesses "
                        "hit the same cache lines, prefetch a[idx[i + d]] some iterations ahead, and keep the "
                        "index loads and the data loads independent so several are in flight."),
    ("softmax", "One pass for the maximum, one for exp(x - max) and its sum (kept in a register, split "
                "across lanes), one to scale: three passes over a row that stays in cache, each vectorised; "
                "or an online softmax that rescales the running sum when the maximum grows, in one pass."),
    ("normalization", "Compute the statistics in one pass (sum and sum of squares, or Welford's update, in "
                      "split accumulators), then normalise in a second pass that applies scale and shift at "
                      "once; each row or channel stays in cache between the two passes."),
    ("transcendental", "Vectorise the elementwise function: call it in a loop the compiler can vectorise "
                       "(libmvec provides vector exp, log, sin at -O3 -march=native with -fno-math-errno "
                       "semantics), or evaluate it with a polynomial after range reduction when the tolerance "
                       "allows; avoid recomputing shared subexpressions (exp(x) once for sigmoid and its product)."),
    ("sparse", "Keep the row loop outer and the nonzeros of a row inner; accumulate a row's dot product in a "
               "register (split across lanes), read the value and column arrays with unit stride, and gather "
               "from the dense vector; for several right-hand sides, loop over them innermost to reuse each "
               "gathered index."),
    ("wavefront", "Skew the iteration space: the cells (i, j) with i + j = d depend only on diagonals d - 1 "
                  "and d - 2, so loop over d outermost and over the cells of one anti-diagonal innermost, "
                  "which are independent and can be vectorised (with a gather, or a skewed copy of the array)."),
    ("packing", "Compress or expand with a prefix count: a first pass computes where each kept element goes "
                "(a scan of the predicate), a second writes it there; both passes vectorise, or use the "
                "compress/expand instructions of AVX-512 where the compiler emits them."),
    ("vectorization", "Make the innermost loop vectorisable: unit-stride access, no aliasing (restrict "
                      "pointers), no loop-carried dependence, a countable trip count; check the compiler's "
                      "report (compile) for the loop's line and fix what it names as the reason it refused."),
    ("memory_bound", "Touch each byte once: fuse loops that walk the same arrays, drop temporaries, and make "
                     "every access unit-stride so whole cache lines and the hardware prefetcher are used; the "
                     "best time is the bytes moved over the memory bandwidth."),
)

# ... and by dwarf, for a scientific kernel none of whose tags has one.
BY_DWARF: dict[str, str] = {
    "dense_linear_algebra": dict(TRANSFORMATIONS)["gemm"],
    "structured_grids": dict(TRANSFORMATIONS)["stencil"],
    "sparse_linear_algebra": dict(TRANSFORMATIONS)["sparse"],
    "unstructured_grids": dict(TRANSFORMATIONS)["indirect_access"],
    "mapreduce": dict(TRANSFORMATIONS)["reduction"],
    "combinational_logic": "Work on several bytes at once: a table-driven update that consumes 4 or 8 input bytes "
                           "per step (slicing-by-8 for a CRC, byte-wise popcount tables or the popcount "
                           "instruction for bit counts), with the tables small enough for L1.",
    "spectral_methods": "Precompute the twiddle factors once per size, not per call; order the butterflies so "
                        "each stage walks memory with unit stride, and do the radix-2 stages in registers "
                        "for the innermost few (radix-4 or -8 blocks).",
    "n_body_methods": "Structure of arrays (x[], y[], z[] rather than a struct per particle) so the inner "
                      "loop over partner particles vectorises; block the pairs so a tile of partners stays in "
                      "L1 while every particle of the outer tile uses it; use symmetry where each pair is "
                      "counted once.",
    "dynamic_programming": "Fill the table along anti-diagonals (a wavefront): the cells of one anti-diagonal "
                           "depend only on the previous two and can be computed together, vectorised; keep "
                           "only the rows the recurrence reads.",
    "graph_traversal": "Keep the frontier as a compact array, visit neighbours from the adjacency (CSR) arrays "
                       "in order, and mark visited nodes in a bitmap; for a dense frontier, switch to a "
                       "bottom-up step that scans unvisited nodes.",
    "graphical_models": "Work in log space on whole rows: the max or log-sum-exp over predecessors of all states "
                        "at once, vectorised, with the transition matrix laid out so that sweep is unit-stride.",
    "finite_state_machines": "Unroll the input loop and look up the transitions from a table small enough for L1; "
                             "where the machine allows, process independent streams interleaved so their "
                             "dependent lookups overlap.",
    "backtrack_branch_and_bound": "Prune early (the best bound first), keep the search state in arrays indexed by "
                                  "depth instead of allocating per node, and order the choices so that good "
                                  "solutions are found first.",
}


def kernel_class(k: Kernel) -> str:
    if k.tsvc is not None:
        loop = f" (TSVC loop {k.tsvc['tsvc_id']})" if k.tsvc.get("tsvc_id") else ""
        return f"a loop of TSVC's {k.tsvc['category'].replace('_', ' ')} category{loop}"
    if k.dwarf is not None:
        return f"a kernel of the {k.dwarf.replace('_', ' ')} dwarf (level {k.level})"
    tags = f", tagged {', '.join(k.tags)}" if k.tags else ""
    return f"a {k.track.replace('_', ' ')} kernel of level {k.level} (KernelBench's levels: 1 one operator, " \
           f"2 a fused chain, 3 a whole network){tags}"


def roofline_bound(k: Kernel, sizes: dict[str, int]) -> str | None:
    """The public case's arithmetic intensity and what it makes the kernel bound by."""
    if k.roofline is None:
        return None
    try:
        flops = float(expr.evaluate(k.roofline.flops, sizes))
        moved = float(expr.evaluate(k.roofline.bytes, sizes))
    except Exception:
        return None
    if moved <= 0:
        return None
    intensity = flops / moved
    if flops == 0:
        return (f"at the public case it moves at least {moved:.3g} bytes and does no floating-point work: it is "
                f"bound by its integer operations or by that memory traffic")
    if "latency_bound" in k.tags:
        bound = "latency-bound: a chain of dependent steps, each waiting for the one before"
    elif intensity < MEMORY_BOUND_BELOW or "memory_bound" in k.tags:
        bound = "memory-bound: the time to beat is the bytes over the memory bandwidth"
    elif intensity > COMPUTE_BOUND_ABOVE or "compute_bound" in k.tags:
        bound = "compute-bound: the time to beat is the flops over the core's vector throughput"
    else:
        bound = "between memory- and compute-bound: which one depends on the machine and on cache reuse"
    return (f"at the public case it does at least {flops:.3g} flops and moves at least {moved:.3g} bytes, "
            f"{intensity:.3g} flop/byte: {bound}")


def hint_ladder(k: Kernel, sizes: dict[str, int]) -> list[str]:
    """The three rungs, each a sentence or two (the public case's sizes for the roofline)."""
    first = f"This is {kernel_class(k)}."
    if k.tsvc is not None and k.tsvc.get("optimization"):
        second = f"What it isolates: {k.tsvc['optimization'].rstrip('.')}."
    else:
        bound = roofline_bound(k, sizes)
        second = f"Its roofline: {bound}." if bound else "Its manifest declares no roofline bound."
    keys = set(k.tags) | ({k.tsvc["category"]} if k.tsvc is not None else set())
    fits = [(tag, text) for tag, text in TRANSFORMATIONS if tag in keys]
    if k.dwarf in BY_DWARF:
        fits.append((k.dwarf, BY_DWARF[k.dwarf]))
    third = (f"A transformation that fits ({fits[0][0].replace('_', ' ')}): {fits[0][1]}" if fits else
             "No worked transformation is written for its tags; the skill pages on loop transformations and "
             "vectorisation cover the usual ones.")
    return [first, second, third]


def hints_text(ladder: list[str], level: int) -> str:
    """The first `level` rungs, as the prompt shows them."""
    return "\n".join(f"- {rung}" for rung in ladder[:max(0, min(level, LEVELS))])
