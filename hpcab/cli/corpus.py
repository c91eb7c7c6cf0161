"""The corpus's upkeep: hpcab lint, sweep, new-kernel and calibrate."""

from __future__ import annotations

from pathlib import Path

from rich.console import Console

from hpcab.cli.common import say
from hpcab.errors import HpcabError
from hpcab.gradedoc import fmt_time


def cmd_lint(args, out: Console) -> int:
    """Every broken kernel the selector covers is reported (file: field: problem), and the
    others are linted; exit 1 when any has a problem."""
    from hpcab.corpus import load_corpus
    from hpcab.gate import lint_kernel
    corpus = load_corpus(Path(args.corpus) if args.corpus else None)
    kernels = corpus.select(args.selector, skip_broken=True)
    broken = corpus.broken_in(args.selector)
    for b in broken:
        say(out, b.describe())
    dirty, total = [], 0
    for k in kernels:
        diagnostics = lint_kernel(k)
        for d in diagnostics:
            say(out, d)
        if diagnostics:
            dirty.append(k.name)
            total += len(diagnostics)
    clean = len(kernels) - len(dirty)
    summary = f"{len(kernels)} kernel(s) linted: {clean} clean"
    if dirty:
        summary += f", {len(dirty)} with {total} diagnostic(s) ({', '.join(dirty)})"
    if broken:
        summary += f"; {len(broken)} do not load ({', '.join(b.id for b in broken)})"
    say(out, summary)
    return 1 if dirty or broken else 0


def cmd_sweep(args, out: Console) -> int:
    """Every failed finding of the selected kernels' baselines, one line each; exit 1 if any."""
    from hpcab.corpus import load_corpus
    from hpcab.sweep import sweep_kernel
    from hpcab.toolchain import load_toolchains
    kernels = load_corpus(Path(args.corpus) if args.corpus else None).select(args.selector)
    lacking = [k.name for k in kernels if args.preset not in k.presets]
    if lacking:
        raise HpcabError(f"--preset {args.preset}: not a preset of {', '.join(lacking)}")
    toolchains = load_toolchains()
    failed = 0
    for k in kernels:
        for finding in sweep_kernel(k, toolchains, args.preset):
            if not finding.ok:
                failed += 1
                say(out, str(finding))
    say(out, f"{len(kernels)} kernel(s) swept at {args.preset}: {failed} finding(s) failed")
    return 1 if failed else 0


def cmd_new_kernel(args, out: Console) -> int:
    from hpcab.paths import corpus_dir
    from hpcab.scaffold import new_kernel, next_steps
    files = new_kernel(args.kernel, Path(args.corpus) if args.corpus else corpus_dir())
    out.print(f"created {files[0].parent}:", markup=False, highlight=False)
    for f in files:
        out.print(f"  {f.name}", markup=False, highlight=False)
    out.print("next:", markup=False, highlight=False)
    for step in next_steps(files[0].parent.name, files, args.corpus):
        out.print(f"  {step}", markup=False, highlight=False)
    return 0


def cmd_calibrate(args, out: Console) -> int:
    from hpcab.calibrate import TARGETS, presets_yaml, rewrite_presets, run_child
    from hpcab.corpus import load_corpus
    if not args.max_seconds > 0:
        raise HpcabError(f"--max-seconds {args.max_seconds:g}: expected a positive number of seconds")
    kernel = load_corpus(Path(args.corpus) if args.corpus else None).get(args.kernel)
    result = run_child(kernel, args.max_seconds)
    out.print(f"{kernel.name}: NumPy reference on one core; time ~ work^{result['exponent']:.2f}",
              markup=False, highlight=False)
    def ns(seconds):
        return None if seconds is None else seconds * 1e9
    for p, target in TARGETS.items():
        sizes = result["proposed"][p]
        how = "predicted" if result["predicted"][p] else "measured"
        out.print(f"  {p}: current {' '.join(f'{k}={v}' for k, v in kernel.presets[p].items())} "
                  f"{fmt_time(ns(result['measured'][p]))}; proposed {' '.join(f'{k}={v}' for k, v in sizes.items())} "
                  f"{fmt_time(ns(result['proposed_seconds'][p]))} ({how}; target {fmt_time(ns(target))}"
                  f"{'; cut short by the 2 GB limit' if result['capped'][p] else ''})", markup=False, highlight=False)
    snippet = presets_yaml(result["proposed"])
    out.print(snippet.rstrip(), markup=False, highlight=False)
    if args.write:
        rewrite_presets(kernel, result["proposed"])
        out.print(f"wrote the presets into {kernel.manifest_path}", markup=False, highlight=False)
    return 0


def register(sub) -> None:
    s = sub.add_parser("lint", help="check references: the canonical NumPy subset the translator reads, and the "
                                     "corpus gate (zeros, constants or a replayed answer must not pass)")
    s.add_argument("selector", help="a kernel, 'all', or a selector (names, tracks, dwarfs, levels)")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_lint)

    s = sub.add_parser("sweep", help="check every baseline of the selected kernels in this process: the "
                                     "translator's C and Fortran builds, and numba for loop-level kernels, "
                                     "against the reference (tests/test_corpus_sweep.py runs a sample)")
    s.add_argument("selector", help="a kernel, 'all', or a selector (names, tags, tracks, TSVC categories)")
    s.add_argument("--preset", default="S", help="the preset the baselines are checked at (default: S)")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_sweep)

    s = sub.add_parser("new-kernel", help="create a kernel folder: a working example manifest, NumPy reference and "
                                          "check stub to edit (docs/adding_a_kernel.md)")
    s.add_argument("kernel", metavar="TRACK/[DWARF/]NAME",
                   help="e.g. loop_level_reasoning/s000_example or scientific_computing/structured_grids/my_stencil")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.set_defaults(func=cmd_new_kernel)

    s = sub.add_parser("calibrate", help="time a kernel's NumPy reference on one core and propose S, M, L presets "
                                         "(~10 ms, ~100 ms, ~1 s; L within 2 GB)")
    s.add_argument("kernel")
    s.add_argument("--corpus", help="the corpus folder (default: the project's corpus/)")
    s.add_argument("--write", action="store_true", help="rewrite the manifest's presets (comments kept)")
    s.add_argument("--max-seconds", type=float, default=60.0,
                   help="stop measuring after about this long (default 60)")
    s.set_defaults(func=cmd_calibrate)
