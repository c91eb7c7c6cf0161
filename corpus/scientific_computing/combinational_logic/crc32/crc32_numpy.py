"""crc32: CRC-32/ISO-HDLC (IEEE 802.3, zlib) of M independent messages of N bytes each, by
Sarwate's table-driven method: a 256-entry table of the reflected polynomial 0xEDB88320,
built bit by bit, then one table lookup per byte, stepped across all messages at once."""

import numpy as np


def initialize(rng, M, N):
    # Random bytes, with runs of zeros and of 0xFF bytes planted in some messages (the
    # bytes that most often hide a wrong initial value, final XOR or shift direction).
    data = rng.integers(0, 256, size=(M, N), dtype=np.uint8)
    for m in range(0, M, 3):
        length = int(rng.integers(0, N + 1))
        at = int(rng.integers(0, N - length + 1))
        data[m, at:at + length] = 0 if m % 2 == 0 else 255
    return {"data": data}


def crc32(data, crc, M, N):
    # The table: entry b is the register after shifting byte b through eight steps of the
    # reflected division (shift right, XOR the polynomial when the bit shifted out is 1).
    table = np.empty(256, dtype=np.int64)
    for b in range(256):
        r = np.int64(b)
        for k in range(8):
            if (r & 1) != 0:
                r = (r >> 1) ^ 0xEDB88320
            else:
                r = r >> 1
        table[b] = r
    # One register per message, held in the low 32 bits of an int64 (so every shift is a
    # logical one); byte i of every message is folded in at step i.
    reg = np.empty(M, dtype=np.int64)
    idx = np.empty(M, dtype=np.int64)
    reg[:] = 0xFFFFFFFF
    for i in range(N):
        idx[:] = (reg ^ data[:, i].astype(np.int64)) & 0xFF
        reg[:] = table[idx] ^ (reg >> 8)
    crc[:] = reg ^ 0xFFFFFFFF
