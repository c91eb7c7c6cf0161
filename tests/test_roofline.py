"""Roofline plausibility (hpcab/roofline.py): the machine probe and its cache, the manifests'
lower bounds, and the rule that honest code is never flagged while impossible speed is."""

from __future__ import annotations

import json

import attrs
import pytest

from hpcab import roofline
from hpcab.build import Candidate
from hpcab.case import explicit_case, preset_case
from hpcab.cli import main
from hpcab.grade import grade
from hpcab.roofline import MARGIN, bound, bound_ns, plausible, probe
from hpcab.timing.policy import Policy
from hpcab.translate import translate

from .conftest import edit_manifest, load_error, sample_kernels


@pytest.fixture(scope="module")
def machine(toolchains):
    """One core, the judge's default placement; measured once into the session's private cache."""
    return probe(toolchains, threads=1)


@pytest.fixture(scope="module")
def policy():
    return Policy(min_repetitions=3, target_seconds=0.05, max_seconds=5, timeout_seconds=60, threads=1, sessions=2)


# --- the probe ------------------------------------------------------------------------------

def test_probe_figures_are_sane(machine):
    assert machine.threads == 1 and len(machine.cpus) == 1
    for pattern in ("read", "copy", "triad", "update"):
        assert 1e9 <= machine.bandwidth[pattern] <= 1e12, (pattern, machine.bandwidth)
    assert machine.bandwidth_bytes_per_s == max(machine.bandwidth.values())
    for precision in ("float64", "float32"):
        assert 1e9 <= machine.peak[precision] / machine.threads <= 10e12, machine.peak
    # Twice the lanes per vector: float32 is never slower than float64.
    assert machine.peak["float32"] >= 0.9 * machine.peak["float64"]
    assert machine.cache_bytes > 0
    if machine.cache_source == "sysfs":
        assert any(c.startswith("L1 data") for c in machine.caches)
        assert machine.stream_array_bytes >= min(4 * machine.cache_bytes, roofline.STREAM_MAX_ARRAY_BYTES) - 4096
    assert machine.flagset == roofline.FLAGSET and machine.compiler_version not in ("missing", "")


def test_probe_is_cached_per_machine(toolchains, tmp_path, monkeypatch):
    # A private cache: other tests' grades may have probed other CPU sets already.
    machine = probe(toolchains, threads=1, cache_root=tmp_path)

    def refuse(*args, **kwargs):
        raise AssertionError("the probe ran again instead of reading its cache")
    monkeypatch.setattr(roofline, "_measure", refuse)
    again = probe(toolchains, threads=1, cache_root=tmp_path)
    assert again.cached
    assert again.key == machine.key and again.measured_at == machine.measured_at
    assert again.bandwidth == machine.bandwidth and again.peak == machine.peak
    # Another CPU set or thread count is another machine: it would be measured.
    other = sorted(set(range(64)) - set(machine.cpus))[0]
    with pytest.raises(AssertionError, match="ran again"):
        probe(toolchains, threads=1, cpus=(other,), cache_root=tmp_path)


def test_fresh_measures_again(toolchains, tmp_path):
    first = probe(toolchains, cache_root=tmp_path)
    assert not first.cached
    assert len(list(tmp_path.glob("*.json"))) == 1
    fresh = probe(toolchains, cache_root=tmp_path, fresh=True)
    assert not fresh.cached and fresh.key == first.key and fresh.measured_at != first.measured_at
    assert probe(toolchains, cache_root=tmp_path).measured_at == fresh.measured_at


def test_cli_probe_reports_the_cached_figures(machine, capsys):
    assert main(["probe", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["cached"] is True and doc["key"] == machine.key
    assert doc["bandwidth_bytes_per_s"] == pytest.approx(machine.bandwidth_bytes_per_s)
    assert main(["probe"]) == 0
    text = capsys.readouterr().out
    assert "GB/s" in text and "GF/s" in text and "from the cache" in text


# --- the manifests ------------------------------------------------------------------------

def test_every_corpus_kernel_declares_a_roofline(corpus):
    assert len(corpus.kernels) >= 19
    for k in corpus.kernels:
        assert k.roofline is not None, f"{k.id} has no roofline"
        for preset, sizes in k.presets.items():
            flops, nbytes = k.roofline.evaluate(sizes)
            for what, value in (("flops", flops), ("bytes", nbytes)):
                assert isinstance(value, int) and not isinstance(value, bool) and value >= 0, (k.id, preset, what)
            assert nbytes > 0, (k.id, preset)
            if k.precision == "exact":
                assert flops == 0, f"{k.id}: integer kernels count no flops"
            else:           # a pure copy, gather or scatter does no arithmetic, and says so
                assert flops > 0 or "data_movement" in k.tags, (k.id, preset)


def test_bytes_never_exceed_every_buffer_read_and_written(corpus):
    """A lower bound on compulsory traffic is at most all buffers read once and written once."""
    import numpy as np
    for k in corpus.kernels:
        for preset, sizes in k.presets.items():
            most = sum(int(np.prod(k.shape_of(a, sizes), dtype=np.int64)) * np.dtype(a.dtype).itemsize
                       * (2 if a.intent == "inout" else 1) for a in k.buffer_specs())
            assert k.roofline.evaluate(sizes)[1] <= most, (k.id, preset)


def test_gemm_counts_the_classical_product(corpus):
    k = corpus.get("gemm")
    sizes = k.presets["S"]
    assert k.roofline.evaluate(sizes)[0] == 2 * sizes["NI"] * sizes["NJ"] * sizes["NK"]


def test_roofline_with_an_undeclared_symbol_is_an_error(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["roofline"].update(flops="2 * NI * NJ * Q"))
    err = load_error(kdir)
    assert err.field == "roofline.flops" and "Q" in err.message


def test_roofline_negative_at_a_preset_is_an_error(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["roofline"].update(bytes="NI - 1000"))
    err = load_error(kdir)
    assert err.field.startswith("presets.") and "roofline.bytes" in err.message


def test_roofline_needs_both_fields(kernel_copy):
    kdir = kernel_copy("gemm")
    edit_manifest(kdir / "gemm.yaml", lambda d: d["roofline"].pop("bytes"))
    err = load_error(kdir)
    assert "roofline" in err.field and "bytes" in err.message


# --- the bound ----------------------------------------------------------------------------

def test_bound_arithmetic(corpus, machine):
    """flops at the precision's peak; only the bytes beyond twice the caches at the bandwidth."""
    synthetic = attrs.evolve(machine, cache_bytes=1 << 20, bandwidth={"read": 1e10, "copy": 2e10, "triad": 1e10},
                             peak={"float64": 1e10, "float32": 4e10})
    k = corpus.get("s271_conditional")          # float32, 4 N bytes, N flops
    b = bound(k, {"N": 10_000_000}, synthetic)
    assert b.flops == 10_000_000 and b.bytes == 40_000_000
    assert b.memory_bytes == 40_000_000 - 2 * (1 << 20)
    assert b.flops_ns == pytest.approx(1e9 * 1e7 / 4e10)               # float32 peak
    assert b.bytes_ns == pytest.approx(1e9 * b.memory_bytes / 2e10)    # the best pattern
    assert bound_ns(k, {"N": 10_000_000}, synthetic) == b.ns == b.bytes_ns
    small = bound(k, {"N": 100_000}, synthetic)                         # fits twice the caches
    assert small.memory_bytes == 0 and small.bytes_ns == 0 and small.ns == small.flops_ns
    gemm = corpus.get("gemm")
    assert bound(gemm, gemm.presets["S"], synthetic).flops_ns == pytest.approx(
        1e9 * 2 * 400 * 440 * 480 / 1e10)                               # float64 peak


def test_an_impossible_time_is_flagged_naming_the_bound(corpus, machine):
    k = corpus.get("gemm")
    sizes = k.presets["S"]
    ok, message = plausible(k, sizes, 1.0, machine)
    assert not ok
    b = bound(k, sizes, machine)
    assert "implausibly fast" in message and "roofline bound" in message
    assert roofline._fmt_ns(b.ns) in message and "NI=400" in message
    # Just above bound / margin passes; just below does not.
    assert plausible(k, sizes, b.ns / MARGIN * 1.01, machine)[0]
    assert not plausible(k, sizes, b.ns / MARGIN * 0.99, machine)[0]


def test_the_subtracted_round_trip_is_given_back_before_the_bound(corpus, machine):
    """At a shape whose bound is below the timer's round trip, a median that is a round trip
    minus a ping is noise: it is implausible only if the whole round trip beats the bound."""
    k = corpus.get("gemm")
    sizes = {"NI": 1, "NJ": 171, "NK": 1}
    limit = bound(k, sizes, machine).ns / MARGIN
    tiny = limit / 4                     # the median left after a round trip was subtracted
    assert not plausible(k, sizes, tiny, machine)[0]
    assert plausible(k, sizes, tiny, machine, round_trip_ns=7000.0)[0]
    ok, message = plausible(k, sizes, tiny, machine, round_trip_ns=limit / 4)
    assert not ok and "round trip" in message


def test_a_kernel_without_a_roofline_is_not_checked(corpus, machine):
    k = attrs.evolve(corpus.get("gemm"), roofline=None)
    assert bound(k, k.presets["S"], machine) is None and bound_ns(k, k.presets["S"], machine) == 0.0
    ok, message = plausible(k, k.presets["S"], 1.0, machine)
    assert ok and "not checked" in message


# --- honest code is never flagged -----------------------------------------------------------

def _honest(kernel, case, toolchains, policy):
    """The translator's C and the NumPy reference, timed by the judge (one thread, pinned)."""
    g = grade(kernel, Candidate(translate(kernel, "c").source, "c"), [case], toolchains, "opt", policy,
              baseline=False)
    c = g.cases[0]
    assert c.timing is not None and c.numpy_timing is not None, (kernel.id, g.status, g.message)
    return {"c": c.timing.median_ns, "numpy": c.numpy_timing.median_ns}


def test_a_cache_resident_tiny_case_is_not_flagged(corpus, machine, toolchains, policy):
    k = corpus.get("s311_sum")
    case = explicit_case(k, {"N": 4096}, seed=0)
    b = bound(k, case.sizes, machine)
    assert b.memory_bytes == 0 and b.ns == b.flops_ns        # in cache: bounded by its flops alone
    for target, ns in _honest(k, case, toolchains, policy).items():
        ok, message = plausible(k, case.sizes, ns, machine)
        assert ok, f"{target}: {message}"
        assert b.ns < ns


@pytest.mark.slow
def test_honest_code_is_never_flagged_at_preset_s(corpus, machine, toolchains, policy):
    """A sample of kernels' bounds at S is below the judge's time of their NumPy reference
    and of the translator's C: even without the margin (every kernel, timed in process:
    test_corpus_sweep)."""
    failures = []
    for k in sample_kernels(corpus.kernels, 6, "roofline-judged", always=("gemm", "s311_sum")):
        case = preset_case(k, "S")
        limit = bound_ns(k, case.sizes, machine)
        for target, ns in _honest(k, case, toolchains, policy).items():
            ok, message = plausible(k, case.sizes, ns, machine)
            if not ok or not limit < ns:
                failures.append(f"{k.name} {target}: {ns:.0f} ns against the bound {limit:.0f} ns: {message}")
    assert not failures, "\n".join(failures)


FLOAT32_SUM_MAX = 1 << 26         # s311_sum sized past this (caches over 64 MiB): left out, see below


@pytest.mark.slow
def test_honest_code_beyond_the_caches_is_not_flagged(corpus, machine, toolchains, policy):
    """Where the data cannot fit in the caches, the memory term of the bound is what holds:
    it must still be below honest times (translated C, NumPy) of memory-bound kernels whose
    compulsory traffic is about four times the caches (half of it beyond twice the caches)."""
    import math
    side = math.isqrt(4 * machine.cache_bytes // 8)
    cases = {"atax": {"M": side, "N": side}, "s311_sum": {"N": machine.cache_bytes}}
    if machine.cache_bytes > FLOAT32_SUM_MAX:
        # A single-accumulator float32 sum (the translator's C) of more values leaves the
        # tolerance: N=316M on a VM whose L3 says 300 MiB gave a relative error of 5e-4.
        # atax (float64) covers the memory term there.
        del cases["s311_sum"]
    for name, sizes in cases.items():
        k = corpus.get(name)
        case = explicit_case(k, sizes, seed=0)
        b = bound(k, case.sizes, machine)
        assert b.memory_bytes > 0 and b.limited_by == "memory", (name, b)
        for target, ns in _honest(k, case, toolchains, policy).items():
            assert b.ns < ns, f"{name} {target}: {ns:.0f} ns against the bound {b.ns:.0f} ns ({b.describe()})"
