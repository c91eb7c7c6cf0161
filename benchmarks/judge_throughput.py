"""How fast the judge grades: latency p50/p95 of one submission at preset S with a warm
build cache, submissions per minute with concurrent clients, and where the time goes.

    .venv/bin/python benchmarks/judge_throughput.py [--kernel gemm] [--source examples/gemm.c]
        [--sequential 10] [--clients 4] [--per-client 3] [judge options after --]

It starts a real `hpcab serve` on loopback (its own temporary database), warms the build
cache with one score, then:
  1. posts --sequential submissions one after another (latency at the client);
  2. posts --clients × --per-client submissions from concurrent clients (throughput).

The judge's own overhead is the grading time minus the candidate's compile and minus
timed calls. It is printed two ways: minus the candidate's timed calls only (the strict
reading), and minus every timed call of the grading session (candidate, NumPy and the
track's baseline, which are timed interleaved by design). Figures, not a pass/fail test.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from hpcab.client import JudgeClient  # noqa: E402


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def start_judge(workdir: Path, kernel: str, extra: list[str]) -> tuple[subprocess.Popen, str]:
    url_file = workdir / "url"
    proc = subprocess.Popen([sys.executable, "-m", "hpcab", "serve", "--db", str(workdir / "judge.db"),
                             "--port", "0", "--url-file", str(url_file), "--kernels", kernel,
                             "--log", str(workdir / "judge.log"), *extra],
                            stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=ROOT)
    deadline = time.monotonic() + 120
    while not url_file.exists():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"the judge did not start (see {workdir / 'judge.log'})")
        time.sleep(0.1)
    return proc, url_file.read_text().strip()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--kernel", default="gemm")
    p.add_argument("--source", default=str(ROOT / "examples" / "gemm.c"))
    p.add_argument("--sequential", type=int, default=10)
    p.add_argument("--clients", type=int, default=4)
    p.add_argument("--per-client", type=int, default=3)
    p.add_argument("judge_args", nargs="*", help="passed to hpcab serve (after --)")
    args = p.parse_args()
    source = Path(args.source).read_text()
    language = {".c": "c", ".cpp": "cpp", ".f90": "fortran"}[Path(args.source).suffix]

    with tempfile.TemporaryDirectory(prefix="hpcab-judge-bench-") as tmp:
        proc, url = start_judge(Path(tmp), args.kernel, args.judge_args)
        try:
            client = JudgeClient(url, max_wait=3600)
            health = client.health()
            print(f"judge: {health['queue']['workers']} worker(s), slot(s) {health['slots']}, "
                  f"{health['threads']} thread(s), kernel {args.kernel}, {health['environment']['cpu_model']}")
            warm = client.score(args.kernel, source, language, label="warm-up")
            if not warm["correct"]:
                raise SystemExit(f"the candidate is not correct: {warm['status']} {warm['message']}")

            latencies, docs = [], []
            for i in range(args.sequential):
                t0 = time.monotonic()
                docs.append(client.submit(args.kernel, source, language, label=f"seq-{i}"))
                latencies.append(time.monotonic() - t0)
            cases = len(docs[0]["cases"])
            print(f"\n1. sequential submissions (public + hidden = {cases} case(s) each), n={len(docs)}:")
            print(f"   latency p50 {percentile(latencies, 0.5):.2f} s, p95 {percentile(latencies, 0.95):.2f} s")
            parts = {k: statistics.median(d["durations"].get(k, 0.0) for d in docs)
                     for k in ("build", "prepare", "cases", "slot_wait", "timed", "candidate_timed", "judge_total")}
            print("   median seconds per submission: " + ", ".join(f"{k} {v:.3f}" for k, v in parts.items()))
            strict = [(lat - d["durations"]["candidate_timed"] - d["durations"]["build"]) / lat
                      for lat, d in zip(latencies, docs)]
            session = [(lat - d["durations"]["timed"] - d["durations"]["build"]) / lat
                       for lat, d in zip(latencies, docs)]
            print(f"   judge overhead, all but the candidate's timed calls and compile: "
                  f"{100 * statistics.median(strict):.0f} % of the latency (goal <= 20 %)")
            print(f"   judge overhead, all but every timed call (candidate, NumPy, baseline) and compile: "
                  f"{100 * statistics.median(session):.0f} % of the latency")

            done: list[float] = []
            errors: list[str] = []

            def worker(w: int) -> None:
                c = JudgeClient(url, max_wait=3600)
                for i in range(args.per_client):
                    try:
                        d = c.submit(args.kernel, source, language, label=f"client{w}-{i}")
                        if not d["correct"]:
                            errors.append(f"client {w}: {d['status']}")
                    except Exception as exc:
                        errors.append(f"client {w}: {exc}")
                    done.append(time.monotonic())
            t0 = time.monotonic()
            threads = [threading.Thread(target=worker, args=(w,)) for w in range(args.clients)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            elapsed = time.monotonic() - t0
            n = args.clients * args.per_client
            print(f"\n2. {args.clients} concurrent clients × {args.per_client} submissions: {n} in {elapsed:.1f} s "
                  f"= {60 * n / elapsed:.1f} submissions/min" + (f"; {len(errors)} failed: {errors[:3]}" if errors else ""))
        finally:
            proc.terminate()
            proc.wait(timeout=60)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
