"""crc32's independent check: the standard library's CRC-32 (binascii.crc32 and zlib.crc32)
of every message, a bit-at-a-time transcription of the reflected division at small sizes,
the catalogued check value and known answers."""

import binascii
import zlib

import numpy as np

from hpcab.refcheck import SEEDS, assert_judged_like_an_oracle, each, run


def _bitwise(message):
    # CRC-32/ISO-HDLC one bit at a time, no table: reflected polynomial 0xEDB88320.
    reg = 0xFFFFFFFF
    for byte in message:
        reg ^= byte
        for _ in range(8):
            reg = (reg >> 1) ^ (0xEDB88320 if reg & 1 else 0)
    return reg ^ 0xFFFFFFFF


@each(sizes=[(1, 1), (1, 9), (3, 1), (7, 2), (17, 33), (64, 257), (300, 800)], seed=SEEDS)
def check_against_zlib(kernel, sizes, seed):
    m, n = sizes
    v, out = run(kernel, {"M": m, "N": n}, seed)
    assert out["crc"].dtype == np.int64
    rows = [v["data"][i].tobytes() for i in range(m)]
    expected = np.array([binascii.crc32(r) for r in rows], dtype=np.int64)
    np.testing.assert_array_equal(out["crc"], expected)
    np.testing.assert_array_equal(out["crc"], [zlib.crc32(r) for r in rows])
    if m * n <= 2000:
        np.testing.assert_array_equal(out["crc"], [_bitwise(r) for r in rows])
    if m >= 17:
        assert len(set(expected.tolist())) == m                  # informative: all distinct
        assert_judged_like_an_oracle(kernel, out, {"crc": expected})


def check_known_test_vectors(kernel):
    fn = kernel.reference().function
    crc = np.full(2, -5, dtype=np.int64)                          # poisoned: must be written
    data = np.frombuffer(b"123456789" + b"The quick", dtype=np.uint8).reshape(2, 9).copy()
    fn(data, crc, 2, 9)
    assert int(crc[0]) == 0xCBF43926                              # CRC-32/ISO-HDLC check value
    assert int(crc[1]) == _bitwise(b"The quick")
    zeros = np.zeros((1, 4), dtype=np.uint8)
    ones = np.full((1, 4), 255, dtype=np.uint8)
    fn(zeros, crc[:1], 1, 4)
    assert int(crc[0]) == 0x2144DF1C                              # four zero bytes
    fn(ones, crc[:1], 1, 4)
    assert int(crc[0]) == 0xFFFFFFFF                              # four 0xFF bytes
