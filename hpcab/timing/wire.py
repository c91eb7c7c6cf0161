"""The wire between the trusted driver and an untrusted runner: the one module both sides
import (hpcab/timing/trusted/process.py, hpcab/timing/untrusted/runner.py).

Two pipes the driver makes (`go`, read by the runner; `done`, written by it) carry one byte
a message, and a shared buffer (a sealed memfd) holds the call's arguments:

    driver → runner   GO: make the call   PING: answer at once   QUIT (or EOF): exit
    runner → driver   READY: loaded       DONE: the call returned
                      LOAD_FAILED / CALL_FAILED + 4-byte length + text: what went wrong

The job (which target, the buffer's layout) comes to the runner as JSON on stdin
(RunnerJob), read and closed before any of the target's code loads. The C loop in the
candidate's process (hpcab/timing/untrusted/harness.py) speaks the same bytes.

NumPy is imported only inside the functions that need it: a C target's runner starts without
it (faster, and with less in the candidate's process).
"""

from __future__ import annotations

import json
import os
import struct

import attrs

GO, PING, QUIT = b"g", b"p", b"q"
READY, DONE, LOAD_FAILED, CALL_FAILED = b"r", b"d", b"E", b"X"
MESSAGE_LIMIT = 4000        # bytes of a failure's text; more is cut


@attrs.frozen
class RunnerJob:
    """What the driver tells one runner: its target, the kernel, the buffer's layout and the
    descriptors it inherits. Checked where the runner reads it (from_json)."""
    name: str = attrs.field(validator=attrs.validators.instance_of(str))
    kind: str = attrs.field(validator=attrs.validators.in_(("c", "python", "numba", "module")))
    library: str | None
    trusted: bool
    symbol: str
    harness: str | None
    harness_ffi: str | None
    kernel_dir: str
    corpus_root: str
    sizes: dict
    layout: list
    buffer_fd: int
    buffer_bytes: int
    go: int
    done: int

    def to_json(self) -> bytes:
        return json.dumps(attrs.asdict(self)).encode()

    @classmethod
    def from_json(cls, data: bytes) -> "RunnerJob":
        fields = json.loads(data)
        missing = [f.name for f in attrs.fields(cls) if f.name not in fields]
        if missing or set(fields) - {f.name for f in attrs.fields(cls)}:
            raise ValueError(f"the runner's job: expected the fields {[f.name for f in attrs.fields(cls)]}, "
                             f"got {sorted(fields)}")
        return cls(**fields)


def layout(kernel, sizes: dict[str, int]) -> list[dict]:
    """Where each ABI argument lives in a target's shared buffer: every pointer argument
    (arrays, returned values, the workspace) and every value argument (scalars, sizes,
    workspace_size), each at a 64-byte aligned offset. Used by the driver to make the
    buffer and by the runner to map it."""
    import numpy as np
    from hpcab.abi import params
    out, offset = [], 0
    for p in params(kernel):
        if p.role == "workspace":
            shape = (max(kernel.workspace_size(sizes), 64),)
        elif p.role == "return":
            spec = next(r for r in kernel.returns if r.name == p.name)
            shape = kernel.shape_of(spec, sizes) or (1,)
        elif p.pointer:
            spec = next(a for a in kernel.arrays if a.name == p.name)
            shape = kernel.shape_of(spec, sizes)
        else:
            shape = ()
        nbytes = max(int(np.prod(shape, dtype=np.int64)) * np.dtype(p.dtype).itemsize, 1)
        out.append({"name": p.name, "role": p.role, "pointer": p.pointer, "dtype": p.dtype,
                    "shape": list(shape), "offset": offset, "nbytes": nbytes})
        offset += (nbytes + 63) // 64 * 64
    return out


def views(buffer, entries: list[dict]) -> dict:
    """The arguments as NumPy arrays on the shared buffer."""
    import numpy as np
    out = {}
    for e in entries:
        count = int(np.prod(e["shape"], dtype=np.int64)) if e["shape"] else 1
        arr = np.frombuffer(buffer, dtype=e["dtype"], count=count, offset=e["offset"])
        out[e["name"]] = arr.reshape(e["shape"])
    return out


def send(fd: int, tag: bytes, text: str = "") -> None:
    """One message: a tag, and for a failure its text."""
    body = text.encode(errors="replace")[:MESSAGE_LIMIT]
    data = tag + (struct.pack("<I", len(body)) + body if tag in (LOAD_FAILED, CALL_FAILED) else b"")
    while data:
        data = data[os.write(fd, data):]
