"""crc16's independent check: the standard library's CRC-CCITT (binascii.crc_hqx) and the
catalogued check value of CRC-16/CCITT-FALSE."""

import binascii

import numpy as np

from hpcab.refcheck import SEEDS, each, judged, run


@each(seed=SEEDS)
def check_against_binascii(kernel, seed):
    v, out = run(kernel, {"N": 301}, seed)
    assert out["crc"].dtype == np.uint16
    assert int(out["crc"][0]) == binascii.crc_hqx(v["data"].tobytes(), 0xFFFF)
    assert not judged(kernel, out, {"crc": np.zeros(1)})


def check_known_test_vectors(kernel):
    fn = kernel.reference().function
    check = np.frombuffer(b"123456789", dtype=np.uint8)
    assert fn(check, 9) == 0x29B1          # CRC-16/CCITT-FALSE check value
    assert fn(check[:0], 0) == 0xFFFF
