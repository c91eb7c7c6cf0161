"""hpcab serve: run a judge, the HTTP grading service (docs/judge_api.md)."""

from __future__ import annotations

import os
from pathlib import Path

from rich.console import Console

from hpcab.cli.common import sessions_option
from hpcab.errors import HpcabError, InputError


def cmd_serve(args, out: Console) -> int:
    from hpcab.judge.server import HttpLimits, configure_logging, serve
    from hpcab.judge.service import JudgeConfig
    from hpcab.judge.slots import parse_slots

    try:
        # A judge grading on R ranks times, by default, in a slot of R CPUs (as many as there
        # are: more ranks share them; docs/mpi.md).
        width = max(args.threads, min(args.mpi_ranks, len(os.sched_getaffinity(0))))
        slots = parse_slots(args.slot, args.threads if args.slot else width)
    except ValueError as exc:
        raise HpcabError(str(exc)) from None
    if not args.build_timeout > 0:
        raise HpcabError(f"--build-timeout {args.build_timeout:g}: a compile needs a positive number of seconds")
    if not args.memory_gib > 0:
        raise HpcabError(f"--memory-gib {args.memory_gib:g}: a candidate needs a positive amount of memory")
    if not args.grade_timeout > 0:
        raise HpcabError(f"--grade-timeout {args.grade_timeout:g}: a grade needs a positive number of seconds")
    presets = tuple(p.strip() for p in args.presets.split(",") if p.strip())
    hidden = tuple(p.strip() for p in args.hidden_presets.split(",") if p.strip())
    config = JudgeConfig(db=Path(args.db), rank=args.rank, kernels=args.kernels,
                         tokens=Path(args.tokens) if args.tokens else None, workers=args.workers, queue=args.queue,
                         slots=slots, threads=args.threads, presets=presets, hidden_presets=hidden,
                         target_seconds=args.target_seconds, timeout_seconds=args.timeout,
                         sessions=args.sessions, drift=args.drift, build_seconds=args.build_timeout,
                         grade_seconds=args.grade_timeout, memory_bytes=int(args.memory_gib * 2**30),
                         secret_file=Path(args.secret_file) if args.secret_file else None,
                         sandbox="none" if args.unsandboxed else "bubblewrap",
                         mpi_ranks=args.mpi_ranks, mpi_launcher=args.mpi_launcher,
                         **({} if args.compiles_per_minute is None else
                            {"compiles_per_minute": args.compiles_per_minute}))
    if not 0 <= args.mpi_ranks <= 64:
        raise InputError("--mpi-ranks", str(args.mpi_ranks), "expected 0 (no distributed grades) to 64")
    if args.compiles_per_minute is not None and not 1 <= args.compiles_per_minute <= 10_000:
        raise InputError("--compiles-per-minute", str(args.compiles_per_minute), "expected 1 to 10000")
    configure_logging(Path(args.log) if args.log else None)
    if args.unsandboxed:
        Console(stderr=True).print("[bold yellow]warning:[/bold yellow] --unsandboxed: candidates compile and run "
                                   "without the bubblewrap sandbox", markup=True, highlight=False, soft_wrap=True)
    for name in ("max_body", "max_connections", "header_timeout", "body_timeout", "keep_alive_timeout"):
        if getattr(args, name) < 0 or (name != "max_connections" and not getattr(args, name) > 0):
            raise HpcabError(f"--{name.replace('_', '-')} {getattr(args, name):g}: expected a positive number")
    limits = HttpLimits(max_body=args.max_body, max_connections=args.max_connections,
                        header_seconds=args.header_timeout, body_seconds=args.body_timeout,
                        keep_alive_seconds=args.keep_alive_timeout)
    return serve(config, args.host, args.port, limits, Path(args.url_file) if args.url_file else None,
                 announce=lambda msg: print(msg, flush=True))


def register(sub) -> None:
    from hpcab.timing.policy import Policy
    defaults = Policy()
    s = sub.add_parser("serve", help="run a judge: the HTTP grading service (docs/judge_api.md)")
    s.add_argument("--db", required=True, help="the judge database (SQLite; created if missing)")
    s.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    s.add_argument("--port", type=int, default=8000, help="port (default 8000; 0 picks a free one)")
    s.add_argument("--rank", type=int, default=0, help="this judge's rank J: it answers requests meant for J only")
    s.add_argument("--kernels", help="selector of the kernels served (default: all)")
    s.add_argument("--tokens", help="tokens file (schemas/tokens.schema.json); without it the judge is open")
    s.add_argument("--workers", type=int, default=2, help="grading worker processes (default 2)")
    s.add_argument("--queue", type=int, default=16, help="gradings accepted at once before 429 (default 16)")
    s.add_argument("--slot", action="append", metavar="CPUS",
                   help="a measurement slot: CPUs timed on together, e.g. 3 or 2,3 (repeat for more slots; "
                        "default: one slot of the last --threads CPUs)")
    s.add_argument("--threads", type=int, default=1, help="threads granted to each timed run (default 1)")
    s.add_argument("--presets", default="S", help="presets of the public cases (default S)")
    s.add_argument("--hidden-presets", default="S", help="presets of the hidden cases (default S)")
    s.add_argument("--target-seconds", type=float, default=0.5,
                   help="timed work per target and case, over all its sessions (default 0.5)")
    sessions_option(s)
    s.add_argument("--timeout", type=float, default=120.0,
                   help="wall-clock limit of one measuring session (a case has --sessions), seconds (default 120)")
    s.add_argument("--grade-timeout", type=float, default=defaults.grade_seconds, metavar="SECONDS",
                   help="wall-clock limit of a grade's measuring, all its cases and sessions together, warm-ups "
                        f"included, seconds (default {defaults.grade_seconds:g})")
    s.add_argument("--build-timeout", type=float, default=60.0, metavar="SECONDS",
                   help="wall-clock limit of a candidate's compile, seconds (default 60): past it the compiler's "
                        "processes are killed and the grade is a build error")
    s.add_argument("--memory-gib", type=float, default=defaults.memory_bytes / 2**30, metavar="GIB",
                   help="memory a candidate's processes may hold together, shared memory and memfd pages "
                        f"included (a memory cgroup where the freezer has one), GiB (default "
                        f"{defaults.memory_bytes / 2**30:g})")
    s.add_argument("--secret-file", help="the judge's secret for hidden cases (default: DB.secret, made on first start)")
    s.add_argument("--mpi-ranks", type=int, default=0, metavar="R",
                   help="grade submissions built with an MPI compiler (mpicc, mpicxx, mpifort) on R ranks, for "
                        "kernels with an mpi: block (docs/mpi.md); give the slots R CPUs (--slot). Default 0: none")
    s.add_argument("--mpi-launcher", choices=("mpirun", "srun"), default="mpirun",
                   help="what starts the ranks: mpirun (sandboxed, this node) or srun (inside a Slurm allocation)")
    s.add_argument("--compiles-per-minute", type=int, default=None,
                   help="compiler reports (POST /compile) an agent may ask for a minute (default 30)")
    s.add_argument("--max-body", type=int, default=8 << 20, help="largest request body in bytes (default 8 MiB)")
    s.add_argument("--max-connections", type=int, default=0,
                   help="open connections at most; beyond, the one that waited longest for a request is closed "
                        "(default: from the open-files limit)")
    s.add_argument("--header-timeout", type=float, default=10.0,
                   help="seconds for a request's line and headers to arrive (default 10)")
    s.add_argument("--body-timeout", type=float, default=60.0,
                   help="seconds for a request's body to arrive (default 60)")
    s.add_argument("--keep-alive-timeout", type=float, default=5.0,
                   help="seconds an idle connection is kept open between requests (default 5)")
    s.add_argument("--url-file", help="write the judge's URL to this file once it is ready")
    s.add_argument("--log", help="append the request log here instead of stderr")
    s.add_argument("--unsandboxed", action="store_true",
                   help="grade without the bubblewrap sandbox (no isolation of candidates from the judge, its "
                        "files and the network; each grade records sandbox \"none\"). Without it the judge "
                        "refuses to start where bubblewrap cannot run")
    s.set_defaults(func=cmd_serve)
