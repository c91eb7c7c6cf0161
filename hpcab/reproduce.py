"""Reproduce a recorded grade: the same submission, kernel, cases, flag set and policy, graded
again, and compared with the record.

    report = reproduce(conn, grade_id)        # Refused when the image differs (see below)
    report.reproduced                         # correctness the same, each speedup's ratio test passed

A grade records the image it ran in (sha256 of the SIF file, or 'native') and the environment
fingerprint. A re-run in another image measures something else, so it is refused unless the
caller allows it (--allow-different-image); the report then lists every field of the
fingerprint that differs. docs/images.md.
"""

from __future__ import annotations

import os

import attrs

from hpcab.build import Candidate
from hpcab.case import Case
from hpcab.environment import fingerprint, image_digest
from hpcab.errors import HpcabError, InputError
from hpcab.grade import Grade, grade
from hpcab.measure import Speedup, ratio_test
from hpcab.timing.policy import Policy
from hpcab.toolchain import Toolchains

# How two grades' speedups are compared (reported with every reproduction).
TEST = ("the ratio now/recorded of each speedup, its 95 % interval from both grades' intervals (normal on the log "
        "scale, the grades independent): reproduced when the interval holds 1")

# The fingerprint's own hash: it differs whenever any field does, so it is not listed.
IGNORED = ("id",)


class DifferentImage(HpcabError):
    """The grade ran in another image than this process; the differences are in .differences."""

    def __init__(self, message: str, differences: list[tuple[str, object, object]]):
        super().__init__(message)
        self.differences = differences


@attrs.frozen
class SpeedupCheck:
    name: str                                  # vs_numpy | vs_baseline
    recorded: tuple[float, float, float] | None  # (value, ci_low, ci_high)
    now: tuple[float, float, float] | None

    @property
    def ratio(self) -> tuple[float, float, float] | None:
        """now / recorded with its 95 % interval (hpcab.measure.ratio_test: each speedup's
        interval read as a normal one on the log scale, the two grades independent); None
        when either side has no speedup."""
        if self.recorded is None or self.now is None:
            return None
        return ratio_test(Speedup(*self.now), Speedup(*self.recorded))

    @property
    def reproduced(self) -> bool | None:
        """The test: the ratio's 95 % interval holds 1, i.e. the two speedups are not shown to
        differ at the 5 % level. None when either side has no speedup."""
        r = self.ratio
        return None if r is None else r[1] <= 1 <= r[2]


@attrs.frozen
class Reproduction:
    grade_id: str
    kernel: str
    recorded_status: str
    status: str
    case_statuses: tuple[tuple[str, str, str], ...]    # (label, recorded, now)
    speedups: tuple[SpeedupCheck, ...]
    image_recorded: str
    image_now: str
    differences: tuple[tuple[str, object, object], ...]   # (field, recorded, now) of the fingerprint
    new_grade: Grade

    @property
    def correctness_reproduced(self) -> bool:
        return self.recorded_status == self.status and all(r == n for _, r, n in self.case_statuses)

    @property
    def speedup_reproduced(self) -> bool:
        """Every speedup recorded with a CI has one now that passes the ratio test with it (a
        recorded grade without one, e.g. incorrect, has nothing to reproduce)."""
        return all(s.reproduced is not False and not (s.recorded and s.now is None) for s in self.speedups)

    @property
    def reproduced(self) -> bool:
        return self.correctness_reproduced and self.speedup_reproduced

    def document(self) -> dict:
        return {
            "grade_id": self.grade_id, "kernel": self.kernel, "reproduced": self.reproduced,
            "correctness_reproduced": self.correctness_reproduced, "speedup_reproduced": self.speedup_reproduced,
            "status": {"recorded": self.recorded_status, "now": self.status},
            "cases": [{"label": lab, "recorded": r, "now": n} for lab, r, n in self.case_statuses],
            "speedups": [{"name": s.name, "recorded": triple_json(s.recorded), "now": triple_json(s.now),
                          "ratio": triple_json(s.ratio), "reproduced": s.reproduced} for s in self.speedups],
            "speedup_test": TEST,
            "image": {"recorded": self.image_recorded, "now": self.image_now,
                      "same": self.image_recorded == self.image_now},
            "environment_differences": [{"field": f, "recorded": r, "now": n} for f, r, n in self.differences],
            "new_grade_id": self.new_grade.id,
        }


def triple_json(t: tuple[float, float, float] | None) -> dict | None:
    """(value, low, high) as a grade document writes a speedup (gradedoc.speedup_json)."""
    return None if t is None else {"value": t[0], "ci95": [t[1], t[2]]}


def _recorded_speedup(row: dict, prefix: str) -> tuple[float, float, float] | None:
    values = (row[prefix], row[f"{prefix}_low"], row[f"{prefix}_high"])
    return None if any(v is None for v in values) else values


def _speedup(sp: Speedup | None) -> tuple[float, float, float] | None:
    return None if sp is None else (sp.value, sp.ci_low, sp.ci_high)


def _flatten(d: dict, prefix: str = "") -> dict:
    out = {}
    for k, v in d.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            out.update(_flatten(v, key + "."))
        else:
            out[key] = v
    return out


def differences(recorded: dict, now: dict) -> list[tuple[str, object, object]]:
    """The fingerprint's fields that differ, flattened (compilers.gcc), sorted; a field the
    record does not have (an older hpcab) is not a difference. A list (cpu_flags) is
    summarized as what was added and removed."""
    a, b = _flatten(recorded), _flatten(now)
    out = []
    for key in sorted(a):
        if key in IGNORED or a[key] == b.get(key):
            continue
        old, new = a[key], b.get(key)
        if isinstance(old, list) and isinstance(new, list) and key == "cpu_flags":
            old, new = (f"{len(old)} flags, {len(set(old) - set(new))} not here: "
                        f"{' '.join(sorted(set(old) - set(new))[:12])}",
                        f"{len(new)} flags, {len(set(new) - set(old))} new: {' '.join(sorted(set(new) - set(old))[:12])}")
        out.append((key, old, new))
    return out


def find_grade(conn, grade_id: str) -> str:
    """A grade's full id from the id or a unique prefix of at least 6 hex digits."""
    if conn.execute("SELECT 1 FROM grades WHERE id = ?", (grade_id,)).fetchone():
        return grade_id
    if len(grade_id) >= 6:
        rows = conn.execute("SELECT id FROM grades WHERE id LIKE ? || '%' LIMIT 3", (grade_id,)).fetchall()
        if len(rows) == 1:
            return rows[0][0]
        if len(rows) > 1:
            raise InputError("grade id", grade_id, f"ambiguous prefix: {', '.join(r[0] for r in rows)}, ...")
    raise InputError("grade id", grade_id, "no such grade in the database")


def recorded_policy(row: dict) -> tuple[Policy, str | None]:
    """The recorded policy, and a note when its CPUs are not all available here (then the
    judge's default placement, the last `threads` CPUs, is used)."""
    fields = attrs.fields_dict(Policy)
    data = {k: v for k, v in row["policy"].items() if k in fields}
    data.setdefault("sessions", 1)        # recorded before sessions: measured in one
    data.setdefault("drift", 0.0)         # ... and without a grade-to-grade term
    if data.get("cpus") is not None:
        data["cpus"] = tuple(data["cpus"])
    policy = Policy(**data)
    if policy.cpus and not set(policy.cpus) <= os.sched_getaffinity(0):
        return attrs.evolve(policy, cpus=None), (f"recorded CPUs {list(policy.cpus)} are not all available here; "
                                                 f"timed on the default CPUs instead")
    return policy, None


def recorded_image(conn, grade_id: str) -> str:
    """The image a recorded grade (its full id, find_grade) ran in: sha256:<hex> or native."""
    return conn.execute("SELECT image_digest FROM grades WHERE id = ?", (grade_id,)).fetchone()[0]


def reproduce(conn, grade_id: str, toolchains: Toolchains, corpus, *, allow_different_image: bool = False,
              progress=None) -> Reproduction:
    """Grade the recorded submission again, here, and compare. Raises DifferentImage (before
    any work) when the grade ran in another image than this process and that is not allowed."""
    from hpcab.record import load_grade
    row = load_grade(conn, find_grade(conn, grade_id))
    env_then = row["environment"]
    image_then, image_now = row["image_digest"], image_digest()
    policy, note = recorded_policy(row)
    if image_then != image_now and not allow_different_image:
        here = fingerprint(toolchains, policy.threads, policy.cpus)
        raise DifferentImage(f"grade {row['id']} ran in image {image_then}, but this environment is {image_now}: "
                             f"its timings would not be comparable. Run `hpcab reproduce` inside that image, or pass "
                             f"--allow-different-image to re-run it here anyway", differences(env_then, here))
    try:
        kernel = corpus.get(row["kernel"])
    except HpcabError as exc:
        raise InputError("grade", row["id"], f"its kernel {row['kernel']!r} is not in this corpus: {exc}") from None
    candidate = Candidate(row["source"], row["language"], row["compiler"], row["label"])
    cases = [Case(kernel.id, dict(c["sizes"]), c["seed"], c["visibility"], c["label"],
                  scored=bool(c.get("scored", 1))) for c in row["cases"]]
    new = grade(kernel, candidate, cases, toolchains, row["flagset"], policy, progress=progress,
                baseline=row.get("baseline") is not None)
    diffs = differences(env_then, new.environment)
    if note:
        diffs.append(("policy.cpus", row["policy"]["cpus"], note))
    recorded_cases = {c["idx"]: c for c in row["cases"]}
    case_statuses = tuple((c.case.label or c.case.describe(), recorded_cases[i]["status"], c.status)
                          for i, c in enumerate(new.cases))
    if not new.cases:                    # a build error has no cases: compare with the record's
        case_statuses = tuple((c["label"], c["status"], "not run") for c in row["cases"])
    speedups = [SpeedupCheck("vs_numpy", _recorded_speedup(row, "speedup_numpy"), _speedup(new.speedup_numpy))]
    if row.get("baseline") is not None:
        speedups.append(SpeedupCheck(f"vs_{row['baseline']}", _recorded_speedup(row, "speedup_baseline"),
                                     _speedup(new.speedup_baseline)))
    return Reproduction(row["id"], row["kernel"], row["status"], new.status, case_statuses, tuple(speedups),
                        image_then, image_now, tuple(diffs), new)
