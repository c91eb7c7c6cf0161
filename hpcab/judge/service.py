"""The judge without HTTP: what each endpoint does (docs/judge_api.md).

Every method takes plain data and returns a JSON-able dict, or raises ApiError with the
HTTP status the server answers. A candidate's build error or wrong answer is a grade,
never an ApiError. Grading runs in a pool of worker processes (hpcab.judge.worker), at
most `queue` gradings accepted at a time; beyond that a request is refused with 429 and
a Retry-After estimate. A submission is written to the database before it is graded, and
a judge restarted after a crash grades again what it had accepted but not finished.
"""

from __future__ import annotations

import collections
import concurrent.futures as cf
import datetime as _dt
import hashlib
import json
import logging
import math
import multiprocessing
import os
import sqlite3
import threading
import time
import uuid
from pathlib import Path
from typing import Any

import attrs

import hpcab
from hpcab.abi import show_abi
from hpcab.baseline import baseline_name
from hpcab.build import Candidate
from hpcab.check import tolerance_for
from hpcab.corpus import load_corpus
from hpcab.environment import fingerprint
from hpcab.errors import HpcabError, InputError
from hpcab.gradedoc import grade_document
from hpcab.hints import hint_ladder
from hpcab.judge import worker
from hpcab.judge.cases import hidden_cases, load_secret, public_cases
from hpcab.judge.slots import Slots, default_lock_dir, parse_slots
from hpcab.judge.tokens import Agent, load_tokens
from hpcab.kernel import Kernel
from hpcab.mpi.harness import COMPILER as MPI_COMPILERS
from hpcab.record import (add_submission, cached_baseline, close_submission, connect, count_profiles, count_scores,
                          count_submissions, finish_profile, finish_score, finish_submission, forget_profile,
                          forget_score, log_profile,
                          forget_unfinished_scores, log_score, pending_submissions, requeue_submissions,
                          save_baseline, score_row, set_score_status, start_submission, submission)
from hpcab.timing.policy import Policy
from hpcab.schema import validate
from hpcab.skills import load_skills
from hpcab.toolchain import load_toolchains

log = logging.getLogger("hpcab.judge")

NOT_FOR_SUBMISSIONS = {"harness", "report", "profile"}   # flag sets only the judge itself uses (added by /compile, /profile)
# Those with a prototype (hpcab.abi.show_abi); a task lists those the judge can build
# (python: always, the judge's own interpreter; pythran: where it is installed).
TASK_LANGUAGES = ("c", "cpp", "fortran", "cuda", "python", "pythran")
# A submission ends graded, interrupted (the judge died grading it, too often: charged),
# error (a grading worker died: not charged) or failed (the grading machinery raised while
# grading it: charged, since the judge cannot tell whether the candidate caused it).
FAILED = "failed"
FINISHED = ("graded", "interrupted", "error", FAILED)


class ApiError(Exception):
    """An HTTP answer other than 200: status, a message, extra headers, an optional body."""

    def __init__(self, status: int, message: str, headers: dict[str, str] | None = None,
                 field: str | None = None, body: dict | None = None):
        super().__init__(message)
        self.status, self.message, self.headers, self.field, self.body = status, message, headers or {}, field, body


@attrs.frozen
class JudgeConfig:
    db: Path = attrs.field(converter=Path)
    rank: int = 0
    kernels: str | None = None               # a selector; None: the whole corpus
    tokens: Path | None = None               # None: an open judge (one anonymous agent, no budgets)
    workers: int = 2                         # grading worker processes
    queue: int = 16                          # gradings accepted at once (running or waiting)
    slots: tuple[tuple[int, ...], ...] = ()  # measurement slots (CPU sets); () = hpcab.judge.slots default
    threads: int = 1
    presets: tuple[str, ...] = ("S",)        # public cases
    hidden_presets: tuple[str, ...] = ("S",)
    target_seconds: float = 0.5
    timeout_seconds: float = 120.0
    sessions: int = Policy().sessions        # measuring sessions per scored case (hpcab serve --sessions)
    drift: float = Policy().drift            # grade-to-grade variation added to intervals (--drift)
    build_seconds: float = 60.0              # a compile's wall-clock limit (hpcab serve --build-timeout)
    grade_seconds: float = Policy().grade_seconds    # a grade's measuring, all cases (--grade-timeout)
    memory_bytes: int = Policy().memory_bytes        # a candidate's processes together (--memory-gib)
    secret_file: Path | None = None          # None: <db>.secret, created on first start
    corpus_root: Path | None = None
    slot_dir: Path | None = None             # None: the machine-wide default
    max_attempts: int = 2                    # gradings a submission gets before it is marked interrupted
    # Candidates compile and run in the bubblewrap sandbox (hpcab.sandbox); "none" only when
    # asked for (hpcab serve --unsandboxed), and then every grade's policy records it.
    sandbox: str = "bubblewrap"
    # The distributed track (docs/mpi.md): a submission built with an MPI compiler wrapper
    # (mpicc, mpicxx, mpifort) is graded on this many ranks, started by this launcher; 0
    # refuses such submissions (hpcab serve --mpi-ranks, --mpi-launcher).
    mpi_ranks: int = 0
    mpi_launcher: str = "mpirun"
    compiles_per_minute: int = 30            # POST /compile, per agent (hpcab serve --compiles-per-minute)


def check_presets(kernels, presets) -> None:
    """Every preset the judge cases use exists for every kernel it serves (the launcher's
    --check calls this too)."""
    for p in presets:
        for k in kernels:
            if p not in k.presets:
                raise InputError("judge", "presets", f"{k.name} has no preset {p!r}")


class Judge:
    def __init__(self, config: JudgeConfig):
        from hpcab import sandbox
        # Strict: the sandbox, or none when told so (--unsandboxed); never "auto".
        if config.sandbox not in sandbox.MODES:
            raise InputError("judge", "sandbox", f"{config.sandbox!r}: expected one of {', '.join(sandbox.MODES)}")
        if config.sandbox == "bubblewrap" and not sandbox.available()[0]:
            raise HpcabError(f"the judge grades candidates in the bubblewrap sandbox, which cannot run here: "
                             f"{sandbox.available()[1]}. Install bubblewrap (Debian: apt-get install bubblewrap), "
                             f"or start the judge with --unsandboxed to grade without a sandbox (each grade then "
                             f"records sandbox \"none\")")
        self.config = config
        corpus = load_corpus(config.corpus_root)
        corpus.refuse_broken(config.kernels, log.warning)
        self.corpus_root = corpus.root
        self.kernels: dict[str, Kernel] = {k.id: k for k in corpus.select(config.kernels)}
        self._all_names = {k.name: k.id for k in corpus.kernels} | {k.id: k.id for k in corpus.kernels}
        check_presets(self.kernels.values(), config.presets + config.hidden_presets)
        self.toolchains = load_toolchains()
        self._skills = load_skills()                      # skills/: checked at start, like the corpus
        self.tokens = load_tokens(config.tokens)
        self.secret = load_secret(config.secret_file or config.db.with_name(config.db.name + ".secret"))
        cpu_sets = config.slots or parse_slots(None, config.threads)
        self.slots = Slots(cpu_sets, config.slot_dir or default_lock_dir())
        self.policy = Policy(threads=config.threads, target_seconds=config.target_seconds, sessions=config.sessions,
                             drift=config.drift,
                             timeout_seconds=config.timeout_seconds, sandbox=config.sandbox,
                             build_seconds=config.build_seconds, grade_seconds=config.grade_seconds,
                             memory_bytes=config.memory_bytes)
        self.environment = fingerprint(self.toolchains, config.threads, None, self.corpus_root)
        self._local = threading.local()
        self._lock = threading.Lock()
        self._inflight = 0
        self._pending: dict[str, cf.Future] = {}         # submission id → its document, while graded
        self._scoring: dict[str, tuple[str, cf.Future]] = {}   # score id → (agent, its document), while graded
        self._workers: set[threading.Thread] = set()     # the threads that grade submissions
        self._stopped: list[str] = []                    # submissions not graded because the judge stopped
        self._stopped_taken: set[str] = set()            # those of them a worker had taken (an attempt counted)
        self._busy = threading.BoundedSemaphore(config.workers)   # jobs handed to the pool
        self._baselines: dict[str, cf.Future] = {}       # baseline key → its document, while measured
        self._recent = collections.deque(maxlen=20)      # recent grading seconds, for Retry-After
        self._compiles: dict[str, collections.deque] = {}   # agent → its compiler reports' times, this minute
        self._closed = False
        connect(config.db).close()                        # create or migrate before serving
        self._rank_lock = _lock_rank(config.db, config.rank)
        self._pool = self._new_pool()

    # ---- plumbing ---------------------------------------------------------------------

    def db(self) -> sqlite3.Connection:
        """This thread's connection (sqlite3 connections are not shared across threads)."""
        conn = getattr(self._local, "conn", None)
        if conn is None:
            conn = self._local.conn = connect(self.config.db)
        return conn

    def _new_pool(self) -> cf.ProcessPoolExecutor:
        pool = cf.ProcessPoolExecutor(
            max_workers=self.config.workers, mp_context=multiprocessing.get_context("spawn"),
            initializer=worker.init_worker, initargs=(str(self.corpus_root), os.getpid()))
        # Start every worker now, from this thread, and load the corpus in each.
        for f in [pool.submit(worker.warm) for _ in range(self.config.workers)]:
            f.result()
        return pool

    def close(self, drain_seconds: float = 600.0) -> None:
        """Stop grading: what is being graded now is finished and recorded; what waited in
        the queue goes back to 'queued' in the database, the attempt not counted (a stop
        asked for is not the submission's doing), and the next start grades it."""
        with self._lock:
            self._closed = True
        self._pool.shutdown(wait=True, cancel_futures=True)
        deadline = time.monotonic() + drain_seconds
        for t in list(self._workers):
            t.join(timeout=max(0.0, deadline - time.monotonic()))
        with self._lock:
            stopped, taken = list(self._stopped), set(self._stopped_taken)
        requeue_submissions(self.db(), [i for i in stopped if i in taken], [i for i in stopped if i not in taken])

    def _admit(self) -> None:
        with self._lock:
            self._refuse_if_full_locked()
            self._inflight += 1

    def _refuse_if_full_locked(self) -> None:
        if self._closed:
            raise ApiError(503, "the judge is shutting down", {"Retry-After": "5"})
        if self._inflight >= self.config.queue:
            raise ApiError(429, f"the judge's queue is full ({self._inflight} gradings accepted, "
                                f"at most {self.config.queue}); retry later",
                           {"Retry-After": str(self._retry_after())})

    def _release(self, seconds: float | None = None) -> None:
        with self._lock:
            self._inflight -= 1
            if seconds is not None:
                self._recent.append(seconds)

    def _retry_after(self) -> int:
        """Seconds until a place in the queue is likely free: the recent grading time times
        the rounds of work ahead of a new request."""
        per = sorted(self._recent)[len(self._recent) // 2] if self._recent else 5.0
        rounds = max(1, self._inflight - self.config.queue + 1) / max(1, self.config.workers)
        return max(1, min(600, math.ceil(per * rounds)))

    def _run(self, fn, job, on_start=None) -> Any:
        """Run a job in the pool, and wait. Jobs wait here, not in the pool (which would
        hand a worker more than it is doing), so a stopping judge leaves them unstarted.
        on_start is called once a worker is free for the job, just before it is handed
        over: what counts an attempt, so waiting in the queue never does. A pool whose
        worker died is replaced."""
        try:
            with self._busy:
                if self._closed:
                    raise ApiError(503, "the judge is stopping", {"Retry-After": "5"})
                if on_start is not None:
                    on_start()
                return self._pool.submit(fn, job).result()
        except cf.process.BrokenProcessPool:
            with self._lock:
                if not self._closed:
                    log.error("a grading worker died; starting a new pool")
                    self._pool = self._new_pool()
            raise ApiError(500, "the judge's grading worker died while grading this; it was not graded") from None

    def queue_depth(self) -> int:
        return self._inflight

    def stop_accepting(self) -> None:
        """A stop was asked for (a signal): new gradings get 503 at once, and those waiting
        for a worker go back to the queue; close() then drains what is being graded."""
        with self._lock:
            self._closed = True

    def refuse_if_full(self) -> None:
        """The 503 or 429 that _admit would answer, before a body is read and parsed, so a
        full judge does not spend memory on requests it will refuse."""
        with self._lock:
            self._refuse_if_full_locked()

    # ---- read-only endpoints -----------------------------------------------------------

    def kernel(self, name: str) -> Kernel:
        kid = self._all_names.get(name)
        if kid is None:
            raise ApiError(404, f"unknown kernel {name!r}; GET /kernels lists what this judge serves", field="kernel")
        if kid not in self.kernels:
            raise ApiError(404, f"kernel {name!r} is not served by this judge (rank {self.config.rank}); "
                                f"GET /kernels lists what it serves", field="kernel")
        return self.kernels[kid]

    def health(self) -> dict:
        return {
            "status": "closing" if self._closed else "ok", "rank": self.config.rank,
            "version": hpcab.__version__,
            "queue": {"depth": self._inflight, "capacity": self.config.queue, "workers": self.config.workers},
            "slots": [list(s) for s in self.slots.cpu_sets], "threads": self.config.threads,
            "auth": "none" if self.tokens.open else "bearer", "kernels": len(self.kernels),
            "sandbox": self.config.sandbox,
            "environment": self.environment,
        }

    def skills(self, name: str = "") -> dict:
        """GET /skills: every skill's name and description; GET /skills/<name>: its page."""
        if not name:
            return {"skills": [s.summary() for s in self._skills.values()]}
        skill = self._skills.get(name)
        if skill is None:
            raise ApiError(404, f"no skill {name[:100]!r}; GET /skills lists them", field="name")
        return {**skill.summary(), "content": skill.content}

    def list_kernels(self) -> dict:
        return {"kernels": [{
            "id": k.id, "name": k.name, "track": k.track, "dwarf": k.dwarf, "level": k.level,
            "description": k.description, "baseline": baseline_name(k)} for k in self.kernels.values()]}

    def task(self, name: str, language: str, agent: Agent) -> dict:
        k = self.kernel(name)
        if language not in TASK_LANGUAGES:
            raise ApiError(400, f"language {language!r}: expected one of {', '.join(TASK_LANGUAGES)}",
                           field="language")
        tol = tolerance_for(k)
        flagsets = {n: f.description for n, f in sorted(self.toolchains.flagsets.items())
                    if n not in NOT_FOR_SUBMISSIONS}
        base = baseline_name(k)
        hidden = len(hidden_cases(k, self.config.hidden_presets, self.secret))
        public = public_cases(k, self.config.presets)
        return {
            "kernel": k.id, "name": k.name, "track": k.track, "dwarf": k.dwarf, "level": k.level,
            "description": k.description, "language": language, "prototype": show_abi(k, language),
            "reference_file": k.reference_path.name, "reference": k.reference_path.read_text(),
            "public_cases": [{"label": c.label, "sizes": c.sizes, "seed": c.seed} for c in public],
            "hints": hint_ladder(k, public[-1].sizes),
            "hidden_cases": hidden,
            "precision": k.precision,
            "tolerance": None if k.precision == "exact" else {"rtol": tol.rtol, "atol": tol.atol,
                                                               "normwise": tol.normwise},
            "baseline": base, "threads": self.config.threads,
            "languages": [lang for lang in TASK_LANGUAGES if self._has_compiler(lang)],
            "flagsets": flagsets, "default_flagset": self.toolchains.default_flagset,
            "budget": self._budget(agent),
            "mpi": self._task_mpi(k, language),
            "goal": (f"Implement {k.name} with exactly this {language} prototype, computing what the NumPy "
                     f"reference computes. POST /score grades it on the public cases; POST /submit (final) "
                     f"grades it on the public and {hidden} hidden case(s). It must be correct on every case "
                     f"(outputs written in place; inputs left unchanged), and it is scored by its speedup over "
                     f"the {base} baseline, timed interleaved with it on {self.config.threads} thread(s)."),
        }

    def _task_mpi(self, k: Kernel, language: str) -> dict | None:
        """How to submit a distributed implementation, where this judge grades them."""
        if k.mpi is None or not self.config.mpi_ranks or language not in MPI_COMPILERS:
            return None
        from hpcab.mpi.abi import show_mpi_abi
        return {"ranks": self.config.mpi_ranks, "launcher": self.config.mpi_launcher,
                "compiler": MPI_COMPILERS[language], "prototype": show_mpi_abi(k, language),
                "split": {s.array: {"axis": s.axis, "distributions": list(s.allowed), "default": s.default}
                          for s in k.mpi.split},
                "how": (f"Submit with compiler {MPI_COMPILERS[language]!r} and this prototype: the candidate is then "
                        f"graded on {self.config.mpi_ranks} MPI ranks, the slowest rank's time counted, against the "
                        f"same single-process baseline (docs/mpi.md).")}

    def _mpi(self, candidate: Candidate) -> dict:
        """A candidate built with an MPI wrapper is graded on the judge's ranks (docs/mpi.md)."""
        if candidate.compiler in MPI_COMPILERS.values() and self.config.mpi_ranks:
            return {"ranks": self.config.mpi_ranks, "launcher": self.config.mpi_launcher}
        return {}

    def _has_compiler(self, language: str) -> bool:
        try:
            return self.toolchains.compiler(language).available()
        except InputError:
            return False

    def _budget(self, agent: Agent) -> dict:
        conn = self.db()
        return {"submissions": agent.submissions, "submissions_used": count_submissions(conn, agent.name),
                "scores": agent.scores, "scores_used": count_scores(conn, agent.name),
                "profiles": agent.profiles, "profiles_used": count_profiles(conn, agent.name)}

    # ---- baselines -------------------------------------------------------------------

    def baseline(self, name: str) -> dict:
        """The track's baseline and NumPy on the public cases: measured once, then cached
        in the database (keyed on the environment, the kernel, the cases and the threads)."""
        k = self.kernel(name)
        cases = tuple(public_cases(k, self.config.presets))
        key = self._baseline_key(k, cases)
        cached = cached_baseline(self.db(), key)
        if cached is not None:
            return dict(cached, cached=True)
        with self._lock:
            fut = self._baselines.get(key)
            owner = fut is None
            if owner:
                fut = self._baselines[key] = cf.Future()
        if not owner:     # measured right now for another request: the same fresh figures
            return dict(fut.result(), cached=False)
        try:
            self._admit()
            try:
                doc = self._run(worker.run_baseline, worker.BaselineJob(k.id, cases, self.policy, self.slots))
            finally:
                self._release()
            doc = dict(doc, measured_at=_now())
            if not doc["error"] and all(c["status"] == "ok" for c in doc["cases"]):
                save_baseline(self.db(), key, k.id, doc)     # a failed measurement is not cached
            fut.set_result(doc)
            return dict(doc, cached=False)
        except BaseException as exc:
            fut.set_exception(exc)
            raise
        finally:
            with self._lock:
                self._baselines.pop(key, None)

    def _baseline_key(self, k: Kernel, cases: tuple) -> str:
        # The sessions too: a figure measured in fewer has another interval (and older ones
        # have no verdict).
        key = [self.environment["id"], k.id, [(c.label, sorted(c.sizes.items()), c.seed) for c in cases],
               {"sessions": self.policy.sessions, "drift": self.policy.drift}]
        return hashlib.sha256(json.dumps(key).encode()).hexdigest()

    # ---- grading -----------------------------------------------------------------------

    def _parse(self, body: Any, agent: Agent) -> tuple[Kernel, Candidate, str | None]:
        if not isinstance(body, dict):
            raise ApiError(400, "the body must be a JSON object (schemas/submission.schema.json)")
        try:
            validate(body, "submission", "request body")
        except InputError as exc:
            raise ApiError(400, f"{exc.field}: {exc.message}", field=exc.field) from None
        bad = _not_text(body)
        if bad is not None:
            key, exc = bad
            raise ApiError(400, f"{key}: not valid Unicode text ({exc.reason} at character {exc.start})",
                           field=key) from None
        k = self.kernel(body["kernel"])
        language = body["language"]
        compiler = body.get("compiler")
        try:
            c = self.toolchains.compiler(compiler or language)
        except InputError as exc:
            raise ApiError(400, exc.message, field="compiler" if compiler else "language") from None
        if c.language != language:
            raise ApiError(400, f"compiler {compiler!r} compiles {c.language}, not {language}", field="compiler")
        if c.name in MPI_COMPILERS.values():
            if not self.config.mpi_ranks:
                raise ApiError(400, f"compiler {c.name!r} builds a distributed (MPI) candidate, and this judge "
                                    f"grades none (it was started without --mpi-ranks)", field="compiler")
            if k.mpi is None:
                raise ApiError(400, f"{k.name} is not in the distributed track (no mpi: block); compiler {c.name!r} "
                                    f"builds distributed candidates only", field="compiler")
        flagset = body.get("flagset")
        if flagset is not None and (flagset in NOT_FOR_SUBMISSIONS or flagset not in self.toolchains.flagsets):
            allowed = sorted(set(self.toolchains.flagsets) - NOT_FOR_SUBMISSIONS)
            raise ApiError(400, f"unknown flag set {flagset!r}; expected one of: {', '.join(allowed)}",
                           field="flagset")
        label = body.get("label") or f"{agent.name}'s {language}"
        return k, Candidate(body["source"], language, compiler, label), flagset

    def score(self, body: Any, agent: Agent) -> dict:
        """Public cases only; not recorded as a grade. Charged to the score budget while it
        is graded and once graded; one the judge could not grade is not. A retry with the
        same score_id gets the first answer and is neither graded nor charged again."""
        k, candidate, flagset = self._parse(body, agent)
        score_id = body.get("score_id")
        if score_id:
            known = self._known_score(score_id, agent)
            if known is not None:
                return known
        else:
            score_id = uuid.uuid4().hex
        done: cf.Future = cf.Future()
        with self._lock:
            # Registered before the row exists, so a concurrent retry with this id waits on it.
            owner, other = self._scoring.setdefault(score_id, (agent.name, done))
        if other is not done:      # the same score_id posted twice at once: the other request grades it
            if owner != agent.name:
                raise ApiError(409, f"score_id {score_id} is already in use; choose a fresh one", field="score_id")
            return other.result()
        try:
            try:
                doc = self._grade_score(k, candidate, flagset, score_id, agent)
            except sqlite3.IntegrityError:
                # The id was written since the look-up above: by a request that finished
                # meanwhile, or by another judge process on this database.
                self._forget_scoring(score_id, done)
                doc = self._known_score(score_id, agent)
                if doc is None:
                    raise ApiError(409, f"score_id {score_id} was posted twice at once and neither was accepted; "
                                        f"post it again", field="score_id") from None
        except BaseException as exc:
            done.set_exception(exc)
            raise
        else:
            done.set_result(doc)
            return doc
        finally:
            self._forget_scoring(score_id, done)

    def _forget_scoring(self, score_id: str, done: cf.Future) -> None:
        with self._lock:
            if self._scoring.get(score_id, (None, None))[1] is done:
                del self._scoring[score_id]

    def _known_score(self, score_id: str, agent: Agent) -> dict | None:
        """A score_id the judge has seen (a client's retry after a lost answer): the first
        answer, or a wait for it while this judge grades it; None for an id never seen."""
        row = score_row(self.db(), score_id)
        if row is not None and row["agent"] != agent.name:
            raise ApiError(409, f"score_id {score_id} is already in use; choose a fresh one", field="score_id")
        if row is not None and row["document"]:
            return json.loads(row["document"])
        if row is not None and row["status"] == FAILED:
            raise ApiError(500, failure_message("score", score_id))
        with self._lock:
            owner, fut = self._scoring.get(score_id, (None, None))
        if fut is not None:
            if owner != agent.name:
                raise ApiError(409, f"score_id {score_id} is already in use; choose a fresh one", field="score_id")
            return fut.result()
        if row is None:
            return None
        if row["status"]:       # graded before the judge kept the answers (schema version < 9)
            raise ApiError(409, f"score_id {score_id} is already in use; choose a fresh one", field="score_id")
        raise ApiError(409, f"score {score_id} is being graded by another judge process on this database",
                       field="score_id")

    def _grade_score(self, k: Kernel, candidate: Candidate, flagset: str | None, score_id: str,
                     agent: Agent) -> dict:
        self._admit()
        accepted, graded = time.monotonic(), False
        try:
            if not log_score(self.db(), score_id, agent.name, k.id, agent.scores, self.config.rank):
                raise ApiError(403, f"agent {agent.name!r} has spent its score budget ({agent.scores})")
            job = worker.GradeJob(k.id, candidate, flagset, tuple(public_cases(k, self.config.presets)),
                                  self.policy, score_id, self.slots, **self._mpi(candidate))
            try:
                g = self._run(worker.run_grade, job)
            except Exception as exc:
                if isinstance(exc, ApiError) or self._closed:
                    # Stopping (503) or a worker that died (500): not graded, not charged.
                    forget_score(self.db(), score_id)
                    if isinstance(exc, ApiError):
                        raise
                    raise ApiError(503, "the judge is stopping", {"Retry-After": "5"}) from None
                self._failed("score", score_id)
                raise ApiError(500, failure_message("score", score_id)) from None
            except BaseException:
                forget_score(self.db(), score_id)     # the judge did not grade it: not charged
                raise
            graded = True
        finally:
            self._release(time.monotonic() - accepted if graded else None)
        try:
            doc = grade_document(g, "score", agent.name, redact_hidden=True,
                                 durations={"judge_total": time.monotonic() - accepted})
            finish_score(self.db(), score_id, g.status, doc)     # kept, so a retry gets this answer
            return doc
        except Exception:
            self._failed("score", score_id)
            raise ApiError(500, failure_message("score", score_id)) from None

    def _failed(self, what: str, ident: str) -> None:
        """The grading machinery raised while grading a score or a submission: the traceback
        goes to the operator's log, never to the agent (it can carry hidden sizes and input
        values, or the candidate's output); the score stays charged (marked failed)."""
        log.exception("grading %s %s failed", what, ident)
        if what == "score":
            try:
                set_score_status(self.db(), ident, FAILED)
            except Exception:
                log.exception("cannot record the failure of score %s", ident)

    def compile(self, body: Any, agent: Agent) -> dict:
        """The compiler's report on a candidate (hpcab.compile_report): built as a score would
        build it, with the report's flags; nothing runs and no budget is charged, but each
        agent may ask at most compiles_per_minute times a minute (429 beyond, with Retry-After)."""
        k, candidate, flagset = self._parse(body, agent)
        self._compile_rate(agent)
        from hpcab.build import BuildLimits
        from hpcab.compile_report import compile_report
        try:
            return compile_report(k, candidate, self.toolchains, flagset, bool(body.get("disassemble")),
                                  sandbox=self.config.sandbox,
                                  limits=BuildLimits(wall_seconds=self.config.build_seconds))
        except InputError as exc:
            raise ApiError(400, exc.message, field=exc.field) from None

    def profile(self, body: Any, agent: Agent) -> dict:
        """Where the candidate's calls spend their time (hpcab.profile): built as a score
        would build it, with line tables, and run under perf on one public case in a
        measurement slot. Charged to the agent's profile budget; not a grade, but recorded
        (who, when, which kernel). A judge that cannot profile answers 409, and charges nothing."""
        k, candidate, flagset = self._parse(body, agent)
        if agent.profiles is not None and count_profiles(self.db(), agent.name) >= agent.profiles:
            raise ApiError(403, f"agent {agent.name!r} has spent its profile budget ({agent.profiles})")
        from hpcab.profile import PROFILED_LANGUAGES, available
        if candidate.language not in PROFILED_LANGUAGES or self._mpi(candidate):
            what = "a distributed (MPI)" if self._mpi(candidate) else f"a {candidate.language}"
            raise ApiError(400, f"{what} candidate cannot be profiled by this judge (perf samples one CPU process; "
                                f"expected language {', '.join(PROFILED_LANGUAGES)} with its default compiler)",
                           field="language")
        preset = body.get("preset") or self.config.presets[-1]
        if preset not in self.config.presets:
            raise ApiError(400, f"preset {preset!r} is not one of this judge's public presets "
                                f"({', '.join(self.config.presets)}); a profile runs on a public case only",
                           field="preset")
        ok, why = available(self.config.sandbox)
        if not ok:
            raise ApiError(409, f"this judge cannot profile: {why}")
        case = next(c for c in public_cases(k, self.config.presets) if c.label == preset)
        profile_id = uuid.uuid4().hex
        self._admit()
        accepted, charged = time.monotonic(), False
        try:
            if not log_profile(self.db(), profile_id, agent.name, k.id, candidate.language, agent.profiles):
                raise ApiError(403, f"agent {agent.name!r} has spent its profile budget ({agent.profiles})")
            charged = True
            job = worker.ProfileWork(k.id, candidate, flagset, case, self.policy, self.slots)
            try:
                doc, why = self._run(worker.run_profile, job)
            except ApiError:
                raise
            except Exception:
                log.exception("profile %s failed", profile_id)
                raise ApiError(500, f"the judge failed while profiling (profile {profile_id}); it was not "
                                    f"charged") from None
            if doc is None:
                raise ApiError(409, f"this judge cannot profile: {why}")
            finish_profile(self.db(), profile_id, doc["status"], time.monotonic() - accepted)
            charged = False          # kept: the profile is made and charged
            return dict(doc, profile_id=profile_id)
        finally:
            if charged:
                forget_profile(self.db(), profile_id)       # the judge's failure: not the agent's to pay
            self._release()

    def _compile_rate(self, agent: Agent) -> None:
        now, limit = time.monotonic(), self.config.compiles_per_minute
        with self._lock:
            recent = self._compiles.setdefault(agent.name, collections.deque())
            while recent and now - recent[0] >= 60.0:
                recent.popleft()
            if len(recent) >= limit:
                wait = max(1, math.ceil(60.0 - (now - recent[0])))
                raise ApiError(429, f"{agent.name} has asked for {limit} compiler reports in the last minute, this "
                                    f"judge's limit (hpcab serve --compiles-per-minute); ask again in {wait} s",
                               {"Retry-After": str(wait)})
            recent.append(now)

    def submit(self, body: Any, agent: Agent) -> dict:
        """Public and hidden cases, recorded. The submission is in the database before it is
        graded; its id (the client's submission_id when given) becomes the grade's id."""
        k, candidate, flagset = self._parse(body, agent)
        sid = body.get("submission_id")
        if sid:
            known = submission(self.db(), sid)
            if known is not None:
                return self._existing(known, agent)
        else:
            sid = uuid.uuid4().hex
        self._admit()
        row = {"id": sid, "agent": agent.name, "judge_rank": self.config.rank, "kernel": k.id,
               "language": candidate.language, "compiler": candidate.compiler, "flagset": flagset,
               "label": candidate.label, "source": candidate.source, "given": body.get("given")}
        done: cf.Future = cf.Future()
        with self._lock:
            # Registered before the row exists, so a concurrent retry with this id waits on it.
            mine = self._pending.setdefault(sid, done) is done
        try:
            if not mine:
                raise sqlite3.IntegrityError(sid)
            if not add_submission(self.db(), dict(row, usage=body.get("usage")), agent.submissions):
                raise ApiError(403, f"agent {agent.name!r} has spent its submission budget ({agent.submissions})")
        except sqlite3.IntegrityError:
            # The same submission_id, posted twice at once: the other request grades it.
            self._forget(sid, done if mine else None)
            self._release()
            other = submission(self.db(), sid)
            fut = self._pending.get(sid)
            if other is None and fut is not None:
                cf.wait([fut])          # the other request's row is written before it grades
                other = submission(self.db(), sid)
            if other is None:
                raise ApiError(409, f"submission_id {sid} was posted twice at once and neither was accepted; "
                                    f"post it again") from None
            return self._existing(other, agent)
        except BaseException:
            self._forget(sid, done)
            self._release()
            raise
        return self._grade_submission(dict(row, attempts=0), admitted=True, done=done).result()

    def _forget(self, sid: str, done: cf.Future | None) -> None:
        with self._lock:
            if done is not None and self._pending.get(sid) is done:
                del self._pending[sid]

    def _grade_submission(self, row: dict, admitted: bool, done: cf.Future | None = None) -> cf.Future:
        """Grade an accepted submission in the background; the future gives its document."""
        done = done or cf.Future()
        with self._lock:
            self._pending[row["id"]] = done
            if not admitted:
                self._inflight += 1

        def work() -> None:
            accepted, graded = time.monotonic(), False
            taken: list[bool] = []

            def start() -> None:
                start_submission(self.db(), row["id"])
                taken.append(True)
            try:
                k = self.kernels[row["kernel"]]
                cases = tuple(public_cases(k, self.config.presets)
                              + hidden_cases(k, self.config.hidden_presets, self.secret))
                candidate = Candidate(row["source"], row["language"], row["compiler"], row["label"])
                job = worker.GradeJob(k.id, candidate, row["flagset"], cases, self.policy, row["id"], self.slots,
                                      **self._mpi(candidate))
                # 'grading' and the attempt are recorded when a worker takes it, not while it
                # waits for one: a judge that dies meanwhile has not tried it.
                g = self._run(worker.run_grade, job, on_start=start)
                doc = grade_document(g, "submit", row["agent"], redact_hidden=True,
                                     durations={"judge_total": time.monotonic() - accepted})
                finish_submission(self.db(), row["id"], g, row["agent"], doc)
                graded = True
                done.set_result(doc)
            except BaseException as exc:
                if self._closed:    # stopped on purpose: back to the queue for the next start
                    with self._lock:
                        self._stopped.append(row["id"])
                        if taken:
                            self._stopped_taken.add(row["id"])
                    done.set_exception(ApiError(503, f"the judge stopped before grading submission {row['id']}; "
                                                     f"it is graded when the judge starts again (post it again "
                                                     f"with the same submission_id)", {"Retry-After": "5"}))
                elif isinstance(exc, ApiError):     # a worker that died: not graded, not charged
                    try:
                        close_submission(self.db(), row["id"], "error", exc.message)
                    except Exception:
                        log.exception("cannot record the failure of submission %s", row["id"])
                    done.set_exception(exc)
                else:   # the grading machinery raised: logged, recorded, charged; the agent is told nothing of it
                    self._failed("submission", row["id"])
                    try:    # the exception is the operator's: the row's message, never an answer
                        close_submission(self.db(), row["id"], FAILED,
                                         f"{failure_message('submission', row['id'])} [{type(exc).__name__}: {exc}]")
                    except Exception:
                        log.exception("cannot record the failure of submission %s", row["id"])
                    done.set_exception(ApiError(500, failure_message("submission", row["id"])))
            finally:
                with self._lock:
                    self._pending.pop(row["id"], None)
                    self._workers.discard(threading.current_thread())
                self._release(time.monotonic() - accepted if graded else None)

        thread = threading.Thread(target=work, name=f"grade-{row['id'][:8]}", daemon=True)
        with self._lock:
            self._workers.add(thread)
        thread.start()
        return done

    def _existing(self, row: dict, agent: Agent) -> dict:
        """A submission the judge already has (a client's retry after a lost answer)."""
        if row["agent"] != agent.name:
            raise ApiError(409, f"submission_id {row['id']} is already in use; choose a fresh one",
                           field="submission_id")
        if row["state"] in FINISHED:
            if row["document"]:
                return json.loads(row["document"])
            if row["state"] == FAILED:      # its message holds the exception, for the operator only
                raise ApiError(500, failure_message("submission", row["id"]))
            raise ApiError(500, f"submission {row['id']} could not be graded: {row['message']}")
        fut = self._pending.get(row["id"])
        if fut is None:
            raise ApiError(409, f"submission {row['id']} is being graded by another judge process on this database")
        return fut.result()

    def grade(self, grade_id: str, agent: Agent) -> dict:
        row = submission(self.db(), grade_id)
        if row is None or row["agent"] != agent.name:
            # Another agent's grade is indistinguishable from no grade at all.
            raise ApiError(404, f"no grade {grade_id!r} of agent {agent.name!r}")
        if row["state"] in FINISHED:
            return self._existing(row, agent)
        raise ApiError(202, f"submission {grade_id} is {row['state']}; ask again later",
                       {"Retry-After": str(self._retry_after())}, body={"id": grade_id, "state": row["state"]})

    # ---- restart --------------------------------------------------------------------

    def recover(self) -> dict[str, int]:
        """Grade again what a previous run of this judge accepted but did not finish; a
        submission whose grading was cut max_attempts times (attempts count only gradings
        a worker took) is marked interrupted. Scores the previous run did not finish are
        forgotten: never graded, so not charged (the client's retry grades them)."""
        with self._lock:
            # Not the ones this run is grading (registered before their row is written).
            forgotten = forget_unfinished_scores(self.db(), self.config.rank, keep=tuple(self._scoring))
        if forgotten:
            log.warning("%d score(s) the last run did not finish grading are forgotten, not charged", forgotten)
        regraded = interrupted = 0
        for row in pending_submissions(self.db()):
            if row["judge_rank"] != self.config.rank:
                continue
            if row["attempts"] >= self.config.max_attempts or row["kernel"] not in self.kernels:
                why = (f"the judge stopped while grading it {row['attempts']} time(s)"
                       if row["kernel"] in self.kernels else f"kernel {row['kernel']} is no longer served")
                close_submission(self.db(), row["id"], "interrupted", why, self._interrupted(row, why))
                interrupted += 1
                log.warning("submission %s of %s marked interrupted: %s", row["id"], row["agent"], why)
            else:
                self._grade_submission(row, admitted=False)
                regraded += 1
                log.warning("submission %s of %s was not finished by the last run: grading it again",
                            row["id"], row["agent"])
        return {"regraded": regraded, "interrupted": interrupted, "scores_forgotten": forgotten}

    def _interrupted(self, row: dict, why: str) -> dict:
        return {
            "id": row["id"], "kind": "submit", "created_at": _now(), "kernel": row["kernel"],
            "status": "interrupted", "correct": False, "message": why, "language": row["language"],
            "compiler": row["compiler"] or "", "compiler_version": "", "flagset": row["flagset"] or "",
            "flagset_overridden": [], "label": row["label"], "build_cached": False, "build_diagnostics": "",
            "speedup_vs_numpy": None,
            "baseline": None, "baseline_origin": None, "baseline_error": None, "speedup_vs_baseline": None,
            "policy": {"threads": self.config.threads, "cpus": None}, "environment_id": self.environment["id"],
            "image_digest": self.environment["image_digest"], "agent": row["agent"], "durations": {}, "cases": [],
        }


def _not_text(body: dict) -> tuple[str, UnicodeEncodeError] | None:
    """The first string of a request body (keys included) that cannot be stored as text (a
    lone surrogate, which JSON's \\ud800 escapes allow), with its field; None if all can."""
    from hpcab.schema import field_path
    stack = [((), body)]
    while stack:
        path, value = stack.pop()
        items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
        for key, v in items:
            for text in ((key, v) if isinstance(key, str) else (v,)):
                if isinstance(text, str):
                    try:
                        text.encode()
                    except UnicodeEncodeError as exc:
                        return field_path(path + (key,)), exc
            if isinstance(v, (dict, list)):
                stack.append((path + (key,), v))
    return None


def failure_message(what: str, ident: str) -> str:
    """The answer to a score or submission whose grading failed inside the judge: no detail
    of the failure (docs/judge_api.md, "Judge failures")."""
    return (f"the judge failed while grading {what} {ident}; the failure is logged for the operator. "
            f"It is charged to the {what} budget (the judge cannot tell a failure the candidate caused "
            f"from its own)")


def _lock_rank(db: Path, rank: int) -> int:
    """One judge per database and rank: two would both recover, and overwrite, each
    other's unfinished submissions. The lock goes with the process."""
    import fcntl
    path = db.with_name(f"{db.name}.rank{rank}.lock")
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        raise InputError(str(db), "rank", f"another judge of rank {rank} is already serving this database; "
                                          f"stop it, or give this one another --rank or --db") from None
    return fd


def _now() -> str:
    """UTC, in the form SQLite's strftime('%Y-%m-%dT%H:%M:%fZ') writes."""
    return _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
