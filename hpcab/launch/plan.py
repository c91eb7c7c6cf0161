"""What a run starts, made before anything is submitted: each leg's role instances (their
command lines, as the jobs will run them) and the arm's images verified against their lock.

The launcher submits these instances; the preflight check (hpcab.launch.preflight) parses
the same command lines. Both import them from here.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hpcab.launch.arm import Arm
from hpcab.launch.roles import Instance, fill


def verified_images(arm: Arm) -> dict[str, tuple]:
    """role -> (its image's lock entry, the SIF's sha256), every SIF hashed against the lock
    before anything is submitted: a mismatch refuses the launch (InputError)."""
    wanted = {name: r.image for name, r in arm.roles.items() if r.image and r.count}
    if not wanted:
        return {}
    from hpcab.launch.images import load_lock, verify
    lock = load_lock(arm.images_lock)
    out = {}
    for role, image in wanted.items():
        entry = lock.entry(image)
        out[role] = (entry, verify(entry))
    return out


SEEDED = ("llm",)          # the optimizers with a seed option (an arm's repeats set it per attempt)


def leg_folder(arm: Arm, run: Path, leg: int) -> Path:
    """Where a leg's roles meet (rendezvous, stop, logs): the run folder itself for one leg."""
    folder = run if len(arm.legs) == 1 else run / f"leg-{leg}"
    (folder / "logs").mkdir(parents=True, exist_ok=True)
    return folder


def instances(arm: Arm, run: Path, tokens: Path, leg: int = 0, images: dict | None = None) -> list[Instance]:
    """The leg's role instances, judges first; the judges' databases are the run's, shared by
    the legs. images: verified_images(arm); an imaged role runs under `apptainer exec`, with
    the image's own python."""
    from hpcab.corpus import load_corpus
    here = leg_folder(arm, run, leg)
    kernels = arm.legs[leg]
    judges, inference = arm.role("judge").count, arm.role("inference").count
    bind = "127.0.0.1" if arm.executor.kind == "local" else "0.0.0.0"
    py = [sys.executable, "-m", "hpcab"]
    out: list[Instance] = []
    model = (arm.model or {}).get("name", "")

    images = images or {}

    def make(role: str, index: int, default: list[str]) -> Instance:
        spec = arm.role(role)
        argv = list(spec.command) if spec.command else default + list(spec.args)
        values = {"{rank}": str(index), "{worker}": str(index), "{run_dir}": str(run), "{model}": model}
        argv = [fill(a, values) for a in argv]
        if role in images:
            from hpcab.launch.images import exec_prefix
            entry, digest = images[role]
            if argv[:3] == py:
                argv[:3] = ["python", "-m", "hpcab"]        # the image's hpcab, not this machine's
            argv = exec_prefix(entry, [run], spec.gpus, digest) + argv
        return Instance(str(here), role, index, tuple(argv), (judges, inference), arm.rendezvous_timeout_s, bind,
                        leg)

    mpi = arm.role("judge").mpi
    distributed = ["--mpi-ranks", str(mpi["ranks"]), "--mpi-launcher", mpi["launcher"]] if mpi else []
    for r in range(judges):
        out.append(make("judge", r, py + ["serve", "--db", str(run / f"judge-{r}.db"), "--rank", str(r),
                                          "--host", bind, "--port", "{port}", "--kernels", ",".join(arm.legs),
                                          "--tokens", str(tokens), "--log", str(here / "logs" / f"judge-{r}.log")]
                        + distributed))
    for i in range(inference):
        out.append(make("inference", i, []))
    # Each kernel is one task of the leg: worker w takes kernels w, w + A, w + 2A, ...
    names = [k.name for k in load_corpus().select(kernels)]
    workers = arm.role("agent").count
    agents_dir = run / "agents" if len(arm.legs) == 1 else run / "agents" / f"leg-{leg}"
    for w in range(workers):
        share = names[w::workers]
        if not share:
            continue            # more workers than kernels: the extra ones have nothing to do
        default = py + ["agent", arm.optimizer, "--kernels", ",".join(share), "--judge", "{judge_url}",
                        "--rank", "{judge_rank}", "--token-file", str(run / "secrets" / f"worker-{w}.token"),
                        "--out", str(agents_dir / f"worker-{w}"), "--no-progress"]
        for key, flag in (("submissions", "--submissions"), ("scores", "--scores"), ("profiles", "--profiles"),
                          ("wall_seconds", "--wall-seconds"), ("tokens", "--tokens")):
            if key in arm.budgets:
                default += [flag, str(arm.budgets[key])]
        if arm.model:
            default += ["--model", "{model_url}" if inference else arm.model.get("url", ""),
                        "--model-name", arm.model["name"], "--api", arm.model.get("api", "openai")]
        for key, value in arm.options.items():
            default += ["--option", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
        if arm.repeats > 1 and arm.optimizer in SEEDED and "seed" not in arm.options:
            default += ["--option", f"seed={arm.attempt(leg)}"]     # each attempt its own seed
        out.append(make("agent", w, default))
    return out
