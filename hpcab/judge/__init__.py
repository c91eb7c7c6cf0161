"""The judge: `hpcab serve`, the HTTP grading service (docs/judge_api.md).

    server.py   the HTTP layer (uvicorn, an ASGI app): routing, rank, auth, connection and
                body limits, JSON errors
    service.py  the judge itself, without HTTP: kernels, tasks, baselines, score, submit,
                grades, the bounded queue and the restart recovery
    worker.py   what runs in the grading worker processes (build, oracle, check)
    slots.py    measurement slots: timing is serialized per reserved core, machine-wide
    cases.py    the public and the hidden cases (hidden seeds from the judge's secret)
    tokens.py   agents, bearer tokens and budgets
"""
