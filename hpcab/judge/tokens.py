"""Agents, their bearer tokens and budgets (schemas/tokens.schema.json).

The judge keeps only a hash of each token in memory after loading, compares hashes, and
names agents (never tokens) in its logs and its database.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import secrets
from pathlib import Path

import attrs

from hpcab.errors import InputError
from hpcab.schema import read_yaml, validate

OPEN_AGENT = "anonymous"


@attrs.frozen
class Agent:
    name: str
    submissions: int | None      # None: no limit (an open judge)
    scores: int | None = None


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode()).digest()


@attrs.frozen
class TokenBook:
    """Who may use the judge. An empty book is an open judge: every request is the one
    agent 'anonymous', without budgets (for a judge on loopback used by one person)."""
    by_digest: dict[bytes, Agent] = attrs.field(factory=dict)

    @property
    def open(self) -> bool:
        return not self.by_digest

    def agent(self, authorization: str | None) -> Agent | None:
        """The agent an Authorization header names, or None."""
        if self.open:
            return Agent(OPEN_AGENT, None, None)
        scheme, _, token = (authorization or "").strip().partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return None
        digest = _digest(token.strip())
        for known, agent in self.by_digest.items():
            if hmac.compare_digest(known, digest):
                return agent
        return None


def load_tokens(path: Path | str | None) -> TokenBook:
    if path is None:
        return TokenBook()
    path = Path(path)
    data = read_yaml(path, "tokens file")
    validate(data, "tokens", path)
    book: dict[bytes, Agent] = {}
    names: set[str] = set()
    for i, entry in enumerate(data["agents"]):
        if entry["name"] in names:
            raise InputError(str(path), f"agents[{i}].name", f"agent {entry['name']!r} is listed twice")
        digest = _digest(entry["token"])
        if digest in book:
            raise InputError(str(path), f"agents[{i}].token", "this token is already another agent's")
        names.add(entry["name"])
        book[digest] = Agent(entry["name"], entry["submissions"], entry.get("scores"))
    return TokenBook(book)


def issue_tokens(names: list[str], submissions: int, path: Path | str, scores: int | None = None) -> dict[str, str]:
    """Write a tokens file (mode 600) with a fresh random token per agent; name → token."""
    tokens = {name: secrets.token_urlsafe(32) for name in names}
    data = {"agents": [{"name": n, "token": t, "submissions": submissions, "scores": scores}
                       for n, t in tokens.items()]}
    validate(data, "tokens", path)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
    return tokens
