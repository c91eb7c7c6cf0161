"""crc16: bitwise CRC-16/CCITT-FALSE (poly 0x1021, init 0xFFFF, no reflection, no final XOR)."""

import numpy as np


def initialize(rng, N):
    return {"data": rng.integers(0, 256, size=N, dtype=np.uint8)}


def crc16(data, N):
    reg = np.int64(0xFFFF)
    for i in range(N):
        reg = reg ^ (np.int64(data[i]) << 8)
        for b in range(8):
            if (reg & 0x8000) != 0:
                reg = ((reg << 1) ^ 0x1021) & 0xFFFF
            else:
                reg = (reg << 1) & 0xFFFF
    return np.uint16(reg)
