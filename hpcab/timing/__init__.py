"""Measurement: how the judge times a candidate's calls, in two sides.

    session.py        the judge's side: hands a case to a measuring driver, reads its result
    policy.py         how the judge measures (Policy), and a session's share of it
    records.py        what crosses between the judge's side and the driver (Job, RunResult,
                      Verdict, Diagnostics), checked where read
    trusted/          the driver, a process of the judge's own: the clock, the input sets,
                      the expected outputs, the checks
        driver.py     one session: start the targets, load them, time the rounds
        process.py    the handle on one measured process (buffer, pipes, limits, freezer group)
        inputs.py     the input sets, made from a secret seed
        rounds.py     the rounds: calls, CPU charged, read-only inputs, answers checked
    wire.py           the buffer layout and the messages: the one module both sides import
    untrusted/        what runs in a target's process: it holds one buffer, no clock
        runner.py     loads the target, makes a call when asked
        harness.py    the C loop a C target's calls go through (generated per kernel)

Nothing here is imported at package level: a runner imports only the wire and its own
module, so a candidate's process starts with as little as possible.
"""
