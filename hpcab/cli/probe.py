"""hpcab probe: this machine's memory bandwidth and peak flop rates (the roofline's figures)."""

from __future__ import annotations

import json

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from hpcab.errors import HpcabError


def cmd_probe(args, out: Console) -> int:
    from hpcab.roofline import probe
    from hpcab.toolchain import load_toolchains
    cpus = None
    if args.cpus:
        try:
            cpus = tuple(int(c) for c in args.cpus.split(",") if c.strip())
        except ValueError:
            raise HpcabError(f"probe: --cpus takes CPU numbers separated by commas, not {args.cpus!r}") from None
    with out.status("probing memory bandwidth and peak flop rates…"):
        m = probe(load_toolchains(), threads=args.threads, cpus=cpus, fresh=args.fresh)
    if args.json:
        print(json.dumps(m.document(), indent=2))
        return 0
    origin = (f"from the cache (measured {m.measured_at}; --fresh measures again)" if m.cached
              else f"measured now in {m.seconds:.2f} s")
    table = Table(title=escape(f"{m.cpu_model}: {m.threads} thread(s) on CPU {','.join(map(str, m.cpus))}"))
    table.add_column("figure")
    table.add_column("value", justify="right")
    for name, value in m.bandwidth.items():
        table.add_row(f"memory bandwidth, {name}", f"{value / 1e9:.1f} GB/s")
    for name, value in m.peak.items():
        table.add_row(f"peak, {name}", f"{value / 1e9:.1f} GF/s")
    table.add_row("caches reached" + (" (assumed)" if m.cache_source == "assumed" else ""),
                  f"{m.cache_bytes / 2**20:.1f} MiB")
    table.add_row("bandwidth arrays", f"3 × {m.stream_array_bytes / 2**20:.0f} MiB")
    table.caption = escape(f"{origin}; built by {m.compiler} {m.compiler_version} with flag set {m.flagset}"
                           + (f"; caches: {'; '.join(m.caches)}" if m.caches else ""))
    out.print(table)
    return 0


def register(sub) -> None:
    s = sub.add_parser("probe", help="measure this machine's memory bandwidth and peak flop rates "
                                     "(the roofline plausibility check's figures; cached)")
    s.add_argument("--threads", type=int, default=1, help="threads to measure with (default 1)")
    s.add_argument("--cpus", help="CPUs to pin to, e.g. 2,3 (default: the last --threads CPUs, as the judge)")
    s.add_argument("--fresh", action="store_true", help="measure again instead of reading the cache")
    s.add_argument("--json", action="store_true", help="print the figures as JSON")
    s.set_defaults(func=cmd_probe)
