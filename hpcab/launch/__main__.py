"""python -m hpcab.launch --arm ARM.yaml"""

from __future__ import annotations

import argparse
import signal
import sys

from rich.console import Console
from rich.markup import escape

from hpcab.errors import HpcabError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hpcab.launch",
                                description="Run an arm: judges, agent workers and inference servers (docs/launch.md).")
    p.add_argument("--arm", required=True, help="the arm file (schemas/arm.schema.json)")
    p.add_argument("--check", action="store_true",
                   help="check the arm as strictly as the launch does and print what would run; submit nothing")
    p.add_argument("--progress-every", type=float, default=30.0, metavar="SECONDS",
                   help="when stdout is not a terminal, print a progress line this often (and at every change "
                        "of a role's state; default 30)")
    args = p.parse_args(argv)
    if not args.progress_every > 0:
        p.error(f"--progress-every {args.progress_every:g}: expected a positive number of seconds")
    # Ctrl-C cancels the run, even when this process was started with SIGINT ignored (a
    # background job of a shell): Python then leaves it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = Console(width=None if sys.stdout.isatty() else 160)
    try:
        from hpcab.launch.arm import load_arm
        arm = load_arm(args.arm)
        if args.check:
            from hpcab.launch.preflight import check_roles
            images = check_roles(arm)       # what the launch checks, the same code
            out.print(f"arm {arm.path}: {arm.executor.kind}; " + ", ".join(
                f"{r.count} {r.name}" for r in arm.roles.values()) + f"; optimizer {arm.optimizer}; "
                f"kernels {', '.join(arm.legs)}", highlight=False)
            for role, (entry, digest) in images.items():
                out.print(f"  {role}: image {entry.name} ({entry.path}) sha256 {digest}: matches the lock",
                          highlight=False)
            out.print("check: ok (nothing submitted)", highlight=False)
            return 0
        from hpcab.launch.launcher import launch
        return launch(arm, out, progress_every=args.progress_every)
    except HpcabError as exc:
        # One line per problem (an arm can have several), never wrapped, brackets not markup.
        err = Console(stderr=True)
        for line in str(exc).splitlines() or [type(exc).__name__]:
            err.print(f"[bold red]error:[/bold red] {escape(line)}", markup=True, highlight=False, soft_wrap=True)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
