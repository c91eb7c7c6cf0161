"""Each seed-corpus reference against an independent computation, at small explicit sizes.

Besides agreeing with the independent result, every kernel must be judged correctly by the
oracle check: the independent result (an honest candidate) passes the precision's band, and
a candidate that writes zeros or a constant fails it.
"""

from __future__ import annotations

import binascii
import math

import numpy as np
import pytest
import scipy.signal
import scipy.sparse
import scipy.special

from hpcab.case import explicit_case, make_inputs, run_oracle
from hpcab.check import check_outputs
from hpcab.corpus import load_corpus

CORPUS = load_corpus()


def run(name: str, sizes: dict[str, int], seed: int = 0):
    """The kernel, its inputs (outs poisoned) and the reference's outputs for one case."""
    kernel = CORPUS.get(name)
    case = explicit_case(kernel, sizes, seed)
    inputs = make_inputs(kernel, case)
    outputs = run_oracle(kernel, case, inputs)
    return kernel, inputs, outputs


def verdict(kernel, outputs: dict[str, np.ndarray], candidate: dict[str, np.ndarray]):
    """The judge's check of a candidate's outputs (cast to the reference's dtypes) against the oracle's."""
    got = {n: np.asarray(candidate[n]).astype(outputs[n].dtype).reshape(outputs[n].shape) for n in outputs}
    return check_outputs(kernel, got, outputs)


def judged(kernel, outputs, candidate) -> bool:
    return verdict(kernel, outputs, candidate).correct


def assert_judged_like_an_oracle(kernel, outputs, independent):
    """The independent result passes the judge; zeros and a constant do not."""
    honest = verdict(kernel, outputs, independent)
    assert honest.correct, honest.message
    assert not judged(kernel, outputs, {n: np.zeros_like(o) for n, o in outputs.items()})
    if all(o.size > 1 for o in outputs.values()):
        mean = {n: np.full_like(o, o.astype(np.complex128 if o.dtype.kind == "c" else np.float64).mean()
                                .astype(o.dtype)) for n, o in outputs.items()}
        assert not judged(kernel, outputs, mean)


# --- scientific_computing ------------------------------------------------------------------

def test_atax():
    k, v, out = run("atax", {"M": 37, "N": 29})
    y = (v["A"].T @ v["A"]) @ v["x"]   # other association than the reference
    np.testing.assert_allclose(out["y"], y, rtol=1e-11, atol=1e-11 * np.abs(y).max())
    assert_judged_like_an_oracle(k, out, {"y": y})


@pytest.mark.parametrize("n", [1, 2, 17, 64])
def test_cholesky(n):
    k, v, out = run("cholesky", {"N": n})
    A, L = v["A"], out["L"]
    np.testing.assert_array_equal(A, A.T)
    np.testing.assert_allclose(L, np.linalg.cholesky(A), rtol=1e-12, atol=1e-13)
    np.testing.assert_array_equal(np.triu(L, 1), 0.0)
    np.testing.assert_allclose(L @ L.T, A, rtol=1e-12, atol=1e-13)
    if n > 1:
        assert_judged_like_an_oracle(k, out, {"L": np.linalg.cholesky(A)})


def test_jacobi_2d():
    n, steps = 9, 3
    k, v, out = run("jacobi_2d", {"TSTEPS": steps, "N": n})
    A = v["A"].tolist()
    B = v["B"].tolist()
    for _ in range(steps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    dst[i][j] = 0.2 * (src[i][j] + src[i][j - 1] + src[i][j + 1] + src[i + 1][j] + src[i - 1][j])
    np.testing.assert_allclose(out["A"], A, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out["B"], B, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(k, out, {"A": np.array(A), "B": np.array(B)})


def test_heat_3d():
    n, steps = 6, 2
    k, v, out = run("heat_3d", {"TSTEPS": steps, "N": n})
    A = v["A"].copy()
    B = v["B"].copy()
    for _ in range(steps):
        for src, dst in ((A, B), (B, A)):
            for i in range(1, n - 1):
                for j in range(1, n - 1):
                    for l in range(1, n - 1):
                        dst[i, j, l] = (0.125 * (src[i + 1, j, l] - 2.0 * src[i, j, l] + src[i - 1, j, l])
                                        + 0.125 * (src[i, j + 1, l] - 2.0 * src[i, j, l] + src[i, j - 1, l])
                                        + 0.125 * (src[i, j, l + 1] - 2.0 * src[i, j, l] + src[i, j, l - 1])
                                        + src[i, j, l])
    np.testing.assert_allclose(out["A"], A, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(out["B"], B, rtol=1e-13, atol=1e-14)
    assert_judged_like_an_oracle(k, out, {"A": A, "B": B})


def test_floyd_warshall():
    n = 30
    k, v, out = run("floyd_warshall", {"N": n})
    p = v["path"].astype(np.int64).tolist()
    for m in range(n):
        for i in range(n):
            for j in range(n):
                if p[i][m] + p[m][j] < p[i][j]:
                    p[i][j] = p[i][m] + p[m][j]
    np.testing.assert_array_equal(out["path"], np.array(p, dtype=np.int32))
    # Shortest paths are informative: many are several hops, shorter than any direct edge.
    assert np.count_nonzero(out["path"] < v["path"]) > n
    assert_judged_like_an_oracle(k, out, {"path": np.array(p)})


def test_crc16():
    k, v, out = run("crc16", {"N": 301})
    assert out["crc"].dtype == np.uint16
    assert int(out["crc"][0]) == binascii.crc_hqx(v["data"].tobytes(), 0xFFFF)
    fn = k.reference().function
    check = np.frombuffer(b"123456789", dtype=np.uint8)
    assert fn(check, 9) == 0x29B1          # CRC-16/CCITT-FALSE check value
    assert fn(check[:0], 0) == 0xFFFF
    assert not judged(k, out, {"crc": np.zeros(1)})


def test_nbody():
    n, steps = 23, 3
    k, v, out = run("nbody", {"N": n, "NSTEPS": steps})
    pos, vel, m = v["pos"].copy(), v["vel"].copy(), v["mass"]
    dt, eps = float(v["dt"]), float(v["eps"])
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]                  # d[i, j] = x_j - x_i
        r2 = np.einsum("ijk,ijk->ij", d, d) + eps * eps
        acc = np.einsum("ij,ijk->ik", m[None, :] * r2 ** -1.5, d)
        vel += dt * acc
        pos += dt * vel
    np.testing.assert_allclose(out["pos"], pos, rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(out["vel"], vel, rtol=1e-12, atol=1e-13)
    assert np.abs(out["vel"] - v["vel"]).max() > 1e-3    # the forces matter
    assert_judged_like_an_oracle(k, out, {"pos": pos, "vel": vel})


@pytest.mark.parametrize("sizes", [{"M": 50, "N": 60, "NNZ": 400}, {"M": 7, "N": 4, "NNZ": 14},
                                   {"M": 1, "N": 3, "NNZ": 1}])
def test_spmv(sizes):
    k, v, out = run("spmv", sizes)
    M, N, NNZ = sizes["M"], sizes["N"], sizes["NNZ"]
    indptr, indices = v["indptr"], v["indices"]
    assert indptr[0] == 0 and indptr[-1] == NNZ and np.all(np.diff(indptr) >= 1)
    assert indices.min() >= 0 and indices.max() < N
    for i in range(M):
        assert np.all(np.diff(indices[indptr[i]:indptr[i + 1]]) > 0)   # sorted, no duplicates
    A = scipy.sparse.csr_matrix((v["values"], indices, indptr), shape=(M, N))
    y = A @ v["x"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-13, atol=1e-13)
    if M > 1:
        assert_judged_like_an_oracle(k, out, {"y": y})


def test_spmv_rows_are_irregular():
    k = CORPUS.get("spmv")
    v = make_inputs(k, explicit_case(k, {"M": 200, "N": 300, "NNZ": 3200}, 1))
    lengths = np.diff(v["indptr"])
    assert lengths.min() < 16 < lengths.max()


@pytest.mark.parametrize("logn", [0, 1, 2, 3, 6, 11])
def test_fft(logn):
    n = 2 ** logn
    k, v, out = run("fft", {"N": n, "LOGN": logn})
    y = np.fft.fft(v["x"])
    np.testing.assert_allclose(out["y"], y, rtol=1e-12, atol=1e-12 * np.abs(y).max())
    if n > 1:
        assert_judged_like_an_oracle(k, out, {"y": y})


# --- machine_learning ----------------------------------------------------------------------

def test_softmax():
    k, v, out = run("softmax", {"B": 13, "N": 70})
    Y = scipy.special.softmax(v["X"].astype(np.float64), axis=1)
    np.testing.assert_allclose(out["Y"], Y, rtol=2e-5, atol=1e-7)
    np.testing.assert_allclose(out["Y"].sum(axis=1), 1.0, rtol=1e-5)
    # Without the max subtraction, exp overflows float32 on these inputs.
    with np.errstate(over="ignore", invalid="ignore"):
        naive = np.exp(v["X"]) / np.sum(np.exp(v["X"]), axis=1, keepdims=True)
    assert not np.all(np.isfinite(naive))
    assert_judged_like_an_oracle(k, out, {"Y": Y})


def test_conv2d():
    sizes = {"N": 2, "C": 3, "H": 9, "W": 11, "K": 4, "R": 3, "S": 2}
    k, v, out = run("conv2d", sizes)
    x, w, b = (v[n].astype(np.float64) for n in ("x", "weight", "bias"))
    y = np.empty((2, 4, 9 - 3 + 1, 11 - 2 + 1))
    for n in range(2):
        for f in range(4):
            y[n, f] = scipy.signal.correlate(x[n], w[f], mode="valid")[0] + b[f]
    np.testing.assert_allclose(out["y"], y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(k, out, {"y": y})


def test_mlp():
    k, v, out = run("mlp", {"B": 9, "DIN": 31, "DH": 40, "DOUT": 7})
    f = {n: a.astype(np.float64) for n, a in v.items()}
    h = np.maximum(f["x"] @ f["W1"] + f["b1"], 0.0)
    h = np.maximum(h @ f["W2"] + f["b2"], 0.0)
    y = h @ f["W3"] + f["b3"]
    np.testing.assert_allclose(out["y"], y, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(k, out, {"y": y})


def test_layernorm():
    k, v, out = run("layernorm", {"B": 11, "N": 300})
    X = v["X"].astype(np.float64)
    Y = ((X - X.mean(axis=1, keepdims=True)) / np.sqrt(X.var(axis=1, keepdims=True) + float(v["eps"]))
         * v["gamma"] + v["beta"])
    np.testing.assert_allclose(out["Y"], Y, rtol=1e-5, atol=1e-5)
    assert_judged_like_an_oracle(k, out, {"Y": Y})


def test_attention():
    k, v, out = run("attention", {"SQ": 17, "SK": 40, "D": 16})
    Q, K, V = (v[n].astype(np.float64) for n in ("Q", "K", "V"))
    O = scipy.special.softmax(Q @ K.T / math.sqrt(16), axis=1) @ V
    np.testing.assert_allclose(out["O"], O, rtol=1e-4, atol=1e-5)
    assert_judged_like_an_oracle(k, out, {"O": O})


# --- loop_level_reasoning ------------------------------------------------------------------

def test_s311_sum():
    k, v, out = run("s311_sum", {"N": 100003})
    assert out["total"].dtype == np.float32
    exact = math.fsum(v["a"].astype(np.float64))
    assert abs(float(out["total"][0]) - exact) <= 1e-5 * abs(exact)
    sequential = np.cumsum(v["a"])[-1]          # a one-accumulator float32 loop
    assert judged(k, out, {"total": sequential})
    assert not judged(k, out, {"total": np.zeros(1)})


def test_s311_sum_one_accumulator_loop_passes_at_l():
    # The manifest widens the float32 band for this sum; a plain sequential float32 loop
    # (what a straightforward C translation computes) must pass at the largest preset.
    k = CORPUS.get("s311_sum")
    case = explicit_case(k, dict(k.presets["L"]), 0)
    v = make_inputs(k, case)
    out = run_oracle(k, case, v)
    assert judged(k, out, {"total": np.cumsum(v["a"])[-1]})


def test_s321_recurrence():
    n = 5000
    k, v, out = run("s321_recurrence", {"N": n})
    a, b = v["a"].astype(np.float64).tolist(), v["b"].astype(np.float64).tolist()
    for i in range(1, n):
        a[i] += a[i - 1] * b[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-4, atol=1e-5)
    assert np.abs(out["a"]).max() < 20.0
    assert_judged_like_an_oracle(k, out, {"a": np.array(a)})


def test_s2111_wavefront():
    n = 60
    k, v, out = run("s2111_wavefront", {"N": n})
    aa = v["aa"].astype(np.float64).tolist()
    for j in range(1, n):
        for i in range(1, n):
            aa[j][i] = (aa[j][i - 1] + aa[j - 1][i]) / 2.1 + aa[j][i]
    np.testing.assert_allclose(out["aa"], aa, rtol=1e-4, atol=1e-5)
    assert 0.3 < np.std(out["aa"]) and np.abs(out["aa"]).max() < 20.0
    assert_judged_like_an_oracle(k, out, {"aa": np.array(aa)})


def test_s271_conditional():
    n = 1001
    k, v, out = run("s271_conditional", {"N": n})
    a = v["a"].tolist()
    b, c = v["b"].tolist(), v["c"].tolist()
    for i in range(n):
        if b[i] > 0.0:
            a[i] += b[i] * c[i]
    np.testing.assert_allclose(out["a"], a, rtol=1e-6, atol=1e-7)
    changed = np.count_nonzero(out["a"] != v["a"])
    assert n // 3 < changed < 2 * n // 3
    assert_judged_like_an_oracle(k, out, {"a": np.array(a)})


# --- every seed kernel ---------------------------------------------------------------------

SEED = ["atax", "cholesky", "jacobi_2d", "heat_3d", "floyd_warshall", "crc16", "nbody", "spmv", "fft",
        "softmax", "conv2d", "mlp", "layernorm", "attention",
        "s311_sum", "s321_recurrence", "s2111_wavefront", "s271_conditional"]


@pytest.mark.parametrize("name", SEED)
def test_preset_s_deterministic_fully_written_and_discriminating(name):
    k = CORPUS.get(name)
    case = explicit_case(k, dict(k.presets["S"]), 3)
    first, second = make_inputs(k, case), make_inputs(k, case)
    assert first.keys() == second.keys()
    for n in first:
        np.testing.assert_array_equal(first[n], second[n])
    out = run_oracle(k, case, first)
    for n, o in out.items():
        if o.dtype.kind in "fc":
            assert np.all(np.isfinite(o)), f"{name}: output {n} not fully written, or not finite"
    # Zeros, the best constant and the answer for another draw of the inputs all fail.
    assert not judged(k, out, {n: np.zeros_like(o) for n, o in out.items()})
    if all(o.size > 1 for o in out.values()):
        assert not judged(k, out, {n: np.full_like(o, o.astype(np.complex128).mean().real if o.dtype.kind != "c"
                                                   else o.mean()) for n, o in out.items()})
    other = run_oracle(k, explicit_case(k, dict(k.presets["S"]), 4))
    assert not judged(k, out, other)


def test_seed_kernels_are_in_the_corpus():
    assert set(SEED) <= {k.name for k in CORPUS.kernels}
