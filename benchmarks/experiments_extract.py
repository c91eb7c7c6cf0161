"""How fast run folders become the observations table: extraction of N synthetic graded
submissions (default 1,000,000), then writing it as CSV and parquet.

    .venv/bin/python benchmarks/experiments_extract.py [--rows N] [--keep DIR]

1. Builds, in a temporary folder, one synthetic run folder: arm.yaml (with a model price)
   and judge-0.db created with the real schema (hpcab.record.connect), filled by bulk
   INSERTs: N submissions (about 4 per task over the corpus's kernels and many agent
   workers; graded, error and interrupted states), a grade for each graded one (ok,
   incorrect, build_error, implausible with some reviews), three environments.
2. In a fresh child process (so building the database does not count), times
   hpcab.experiments.extract() on it, then write_observations() to .csv and .parquet, and
   reports the child's peak RSS (getrusage ru_maxrss) after its imports and at the end.

Figures, not a pass/fail test.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

ARM = """experiment: bench
arm: synthetic
optimizer: llm
model: {name: synthetic-model, api: openai,
        price: {prompt: 3.0, completion: 15.0, cached: 0.3}}
executor: {kind: local}
roles: {judge: {count: 1}, agent: {count: 1}}
kernels: all
"""


def build(folder: Path, n: int, seed: int = 0) -> Path:
    """A run folder with N submissions in judge-0.db; returns the folder."""
    import numpy as np

    from hpcab.corpus import load_corpus
    from hpcab.record import connect

    run = folder / "bench-20260101-000000"
    run.mkdir(parents=True)
    (run / "arm.yaml").write_text(ARM)
    (run / "status.json").write_text(json.dumps({"state": "succeeded"}))
    rng = np.random.default_rng(seed)
    kernels = [k.id for k in load_corpus().kernels]
    per_task = 4
    agents = max(1, n // (per_task * len(kernels)))
    # The i-th submission: task (agent, kernel) = divmod(i // per_task, len(kernels)).
    task = np.arange(n) // per_task
    agent_ix, kernel_ix = task // len(kernels) % agents, task % len(kernels)
    u = rng.random(n)
    state = np.where(u < 0.03, "error", np.where(u < 0.05, "interrupted", "graded"))
    v = rng.random(n)
    status = np.where(v < 0.10, "incorrect", np.where(v < 0.15, "build_error",
                      np.where(v < 0.18, "implausible", "ok")))
    speed = np.exp(rng.normal(0.2, 0.8, n))
    numpy_speed = speed * np.exp(rng.normal(1.0, 0.5, n))
    prompt = rng.integers(0, 20_000, n)
    completion = rng.integers(0, 4_000, n)
    cached = (prompt * rng.random(n)).astype(np.int64)
    envs = [{"id": f"env{e}", "cpu_model": f"CPU model {e}", "hpcab_version": "0.1.0",
             "image_digest": "native" if e == 0 else f"sha256:{e:064x}"} for e in range(3)]
    env_ix = rng.integers(0, 3, n)
    t0 = 1_767_225_600.0                      # 2026-01-01T00:00:00Z
    stamps = [time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(t0 + i * 0.25)) + f".{(i % 4) * 250:03d}Z"
              for i in range(n)]

    conn = connect(run / "judge-0.db")
    conn.execute("PRAGMA synchronous=OFF")
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO environments (id, fingerprint) VALUES (?, ?)",
                     [(e["id"], json.dumps(e)) for e in envs])
    graded = state == "graded"

    def grades():
        for i in np.flatnonzero(graded).tolist():
            ok = status[i] == "ok"
            sp = float(speed[i]) if ok else None
            nsp = float(numpy_speed[i]) if ok else None
            yield (f"s{i:09d}", stamps[i], kernels[kernel_ix[i]], "c", "gcc", "12.2.0", "opt", "c@opt", "0" * 64,
                   "void f(void) {}", "key", "", str(status[i]), int(ok), "", nsp, nsp and nsp * 0.95,
                   nsp and nsp * 1.05, "{}", envs[env_ix[i]]["id"], "numba", "generated", None, sp,
                   sp and sp * 0.95, sp and sp * 1.05, f"worker-{agent_ix[i]}", "submit",
                   envs[env_ix[i]]["image_digest"])
    conn.executemany(
        "INSERT INTO grades (id, created_at, kernel, language, compiler, compiler_version, flagset, label, "
        "source_sha256, source, build_key, build_diagnostics, status, correct, message, speedup_numpy, "
        "speedup_numpy_low, speedup_numpy_high, policy, environment_id, baseline, baseline_origin, "
        "baseline_error, speedup_baseline, speedup_baseline_low, speedup_baseline_high, agent, kind, "
        "image_digest) VALUES (" + ", ".join("?" * 29) + ")", grades())

    def submissions():
        for i in range(n):
            g = state[i] == "graded"
            yield (f"s{i:09d}", f"worker-{agent_ix[i]}", stamps[i], 0, kernels[kernel_ix[i]], "c", None, "opt",
                   "c@opt", "void f(void) {}", str(state[i]), 1, f"s{i:09d}" if g else None, stamps[i],
                   int(prompt[i] > 0) * 3, int(prompt[i]), int(completion[i]), int(cached[i]), float(i % 600))
    conn.executemany(
        "INSERT INTO submissions (id, agent, received_at, judge_rank, kernel, language, compiler, flagset, "
        "label, source, state, attempts, grade_id, finished_at, model_calls, prompt_tokens, completion_tokens, "
        "cached_tokens, agent_wall_seconds) VALUES (" + ", ".join("?" * 19) + ")", submissions())
    implausible = np.flatnonzero(graded & (status == "implausible"))[::2].tolist()
    conn.executemany("INSERT INTO reviews (grade_id, verdict, note, reviewer) VALUES (?, ?, '', 'bench')",
                     [(f"s{i:09d}", "accepted" if k % 2 else "rejected") for k, i in enumerate(implausible)])
    conn.execute("COMMIT")
    conn.close()
    return run


def child(run: Path, out: Path) -> None:
    """Times the extraction and the writes; prints one JSON line."""
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    from hpcab.experiments.extract import extract, kernel_metadata, write_observations
    kernel_metadata()                   # the corpus is loaded once per process: not the extraction's cost
    imported = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    result = extract([str(run)])
    t_extract = time.perf_counter() - t
    peak_extract = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t = time.perf_counter()
    write_observations(result.table, out / "obs.csv")
    t_csv = time.perf_counter() - t
    t = time.perf_counter()
    write_observations(result.table, out / "obs.parquet")
    t_parquet = time.perf_counter() - t
    t = time.perf_counter()
    summary = result.summary()
    t_summary = time.perf_counter() - t
    print(json.dumps({
        "rows": result.table.height, "tasks": int(result.table["final"].sum()), "problems": result.problems,
        "extract_s": t_extract, "csv_s": t_csv, "parquet_s": t_parquet, "summary_s": t_summary,
        "csv_mb": (out / "obs.csv").stat().st_size / 2**20, "parquet_mb": (out / "obs.parquet").stat().st_size / 2**20,
        "rss_start_mb": before / 1024, "rss_imported_mb": imported / 1024, "rss_peak_extract_mb": peak_extract / 1024,
        "rss_peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "summary": summary.to_dicts()}))


def _child(args: list[str]) -> str:
    proc = subprocess.run([sys.executable, __file__, *args], check=False, capture_output=True, text=True, cwd=ROOT)
    if proc.returncode:
        raise SystemExit(f"{' '.join(args[:1])} failed:\n{proc.stdout}{proc.stderr}")
    return proc.stdout


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rows", type=int, default=1_000_000, help="submissions in the database (default 1,000,000)")
    p.add_argument("--keep", help="build in this folder and keep it (default: a temporary folder, removed)")
    p.add_argument("--build", nargs=2, help=argparse.SUPPRESS)
    p.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.build:
        print(build(Path(args.build[0]), int(args.build[1])))
        return 0
    if args.child:
        child(Path(args.child[0]), Path(args.child[1]))
        return 0
    with tempfile.TemporaryDirectory(prefix="hpcab-extract-bench-") as tmp:
        where = Path(args.keep) if args.keep else Path(tmp)
        t = time.perf_counter()
        # Both steps in child processes: Linux carries a process's peak RSS over fork and
        # exec, so a child started by a parent that had built the database would inherit it.
        run = Path(_child(["--build", str(where), str(args.rows)]).strip().splitlines()[-1])
        db_mb = (run / "judge-0.db").stat().st_size / 2**20
        print(f"built {args.rows:,} submissions in {time.perf_counter() - t:.1f} s "
              f"(judge-0.db {db_mb:.0f} MiB)")
        r = json.loads(_child(["--child", str(run), str(where)]).strip().splitlines()[-1])
    rows = r["rows"]
    print(f"extract(): {rows:,} rows ({r['tasks']:,} tasks) in {r['extract_s']:.2f} s = "
          f"{rows / r['extract_s']:,.0f} rows/s")
    print(f"peak RSS: {r['rss_peak_extract_mb']:.0f} MiB after extract() ({r['rss_imported_mb']:.0f} MiB after the "
          f"imports: extraction +{r['rss_peak_extract_mb'] - r['rss_imported_mb']:.0f} MiB); "
          f"{r['rss_peak_mb']:.0f} MiB at the end")
    print(f"write CSV: {r['csv_s']:.2f} s ({r['csv_mb']:.0f} MiB); parquet: {r['parquet_s']:.2f} s "
          f"({r['parquet_mb']:.0f} MiB); summary (bootstrap 2000): {r['summary_s']:.2f} s")
    for row in r["summary"]:
        print(f"  {row['experiment']} / {row['arm']}: {row['tasks']:,} tasks, {row['submissions']:,} submissions, "
              f"{row['correct']:,} correct, geomean {row['geomean']:.3f} [{row['geomean_low']:.3f}, "
              f"{row['geomean_high']:.3f}]")
    if r["problems"]:
        print("problems:", *r["problems"], sep="\n  ")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
