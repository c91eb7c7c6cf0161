"""python -m hpcab.launch --arm ARM.yaml"""

from __future__ import annotations

import argparse
import signal
import sys

from rich.console import Console

from hpcab.errors import HpcabError


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m hpcab.launch",
                                description="Run an arm: judges, agent workers and inference servers (docs/launch.md).")
    p.add_argument("--arm", required=True, help="the arm file (schemas/arm.schema.json)")
    p.add_argument("--check", action="store_true", help="check the arm and print what would run; submit nothing")
    args = p.parse_args(argv)
    # Ctrl-C cancels the run, even when this process was started with SIGINT ignored (a
    # background job of a shell): Python then leaves it ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    out = Console(width=None if sys.stdout.isatty() else 160)
    try:
        from hpcab.launch.arm import load_arm
        arm = load_arm(args.arm)
        if args.check:
            from hpcab.launch.launcher import verified_images
            out.print(f"arm {arm.path}: {arm.executor.kind}; " + ", ".join(
                f"{r.count} {r.name}" for r in arm.roles.values()) + f"; optimizer {arm.optimizer}; "
                f"kernels {', '.join(arm.legs)}", highlight=False)
            for role, (entry, digest) in verified_images(arm).items():
                out.print(f"  {role}: image {entry.name} ({entry.path}) sha256 {digest}: matches the lock",
                          highlight=False)
            return 0
        from hpcab.launch.launcher import launch
        return launch(arm, out)
    except HpcabError as exc:
        Console(stderr=True).print(f"[bold red]error:[/bold red] {exc}", markup=True, highlight=False)
        return 2


if __name__ == "__main__":
    raise SystemExit(main())
