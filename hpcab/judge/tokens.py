"""Agents, their bearer tokens and budgets (schemas/tokens.schema.json).

The judge keeps only a hash of each token in memory after loading, compares hashes, and
names agents (never tokens) in its logs and its database. A client's side: client_token
reads the token to send from a token file, the judge's tokens file or $HPCAB_TOKEN.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import secrets
from pathlib import Path

import attrs

from hpcab.client import plausible_token
from hpcab.errors import HpcabError, InputError
from hpcab.schema import read_yaml, validate

OPEN_AGENT = "anonymous"
AGENT_NAME = r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}"      # schemas/tokens.schema.json's agent name


@attrs.frozen
class Agent:
    name: str
    submissions: int | None      # None: no limit (an open judge)
    scores: int | None = None
    profiles: int | None = None


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
        book[digest] = Agent(entry["name"], entry["submissions"], entry.get("scores"), entry.get("profiles"))
    return TokenBook(book)


def issue_tokens(names: list[str], submissions: int, path: Path | str, scores: int | None = None,
                 profiles: int | None = None) -> dict[str, str]:
    """Write a tokens file (mode 600) with a fresh random token per agent; name → token."""
    tokens = {name: secrets.token_urlsafe(32) for name in names}
    data = {"agents": [{"name": n, "token": t, "submissions": submissions, "scores": scores, "profiles": profiles}
                       for n, t in tokens.items()]}
    validate(data, "tokens", path)
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        json.dump(data, f, indent=2)
    return tokens


def client_token(token_file: str | None, agent: str | None = None) -> str | None:
    """The bearer token a client sends: that of token_file (a file holding one token, or
    the judge's tokens file with agent NAME), else of $HPCAB_TOKEN (None when unset). The
    messages name the flags of the commands that take these (--token-file, --agent). No
    message quotes the file: it may hold every agent's token."""
    if not token_file:
        if agent:
            raise HpcabError(f"--agent {agent}: it picks a token from the judge's tokens file; "
                             "give that file with --token-file")
        token = os.environ.get("HPCAB_TOKEN", "").strip() or None
        if token and (why := plausible_token(token)):
            raise HpcabError(f"$HPCAB_TOKEN does not hold a plausible token: {why} (its value is not shown)")
        return token
    path = Path(token_file)
    if not path.is_file():
        raise HpcabError(f"{path}: no such token file")
    try:
        if path.stat().st_size > 1 << 20:
            raise HpcabError(f"{path}: too large for a token file or the judge's tokens file (over 1 MiB)")
        text = path.read_bytes().decode()
    except OSError as exc:
        raise HpcabError(f"{path}: cannot read the token file: {exc.strerror or exc}") from None
    except UnicodeDecodeError:
        raise HpcabError(f"{path}: not a token file: it is not UTF-8 text (its content is not shown)") from None
    entries = _tokens_file_agents(text)
    if entries is None:
        if agent:
            raise HpcabError(f"--agent {agent}: {path} is not the judge's tokens file (no list of agents "
                             "in it); a file holding just one token needs no --agent")
        token = text.strip()
        if why := plausible_token(token):
            raise HpcabError(f"{path} does not hold a plausible token: {why} (its content is not shown)")
        return token
    # Names only: a name that is not one (a token pasted in the wrong field) stays unsaid.
    names = [e["name"] for e in entries if isinstance(e.get("name"), str) and re.fullmatch(AGENT_NAME, e["name"])]
    listed = ", ".join(names[:20]) + (f" and {len(names) - 20} more" if len(names) > 20 else "") \
        if names else "none with a valid name"
    if not agent:
        raise HpcabError(f"{path} is the judge's tokens file (agents: {listed}); pass --agent NAME to use "
                         "that agent's token, or give a file holding just one token")
    chosen = [e for e in entries if e.get("name") == agent]
    if not chosen:
        raise HpcabError(f"--agent {agent}: {path} lists no such agent (agents: {listed})")
    token = chosen[0].get("token")
    why = plausible_token(token.strip()) if isinstance(token, str) else "it is not a string"
    if why:
        raise HpcabError(f"{path}: agent {agent}'s token is not a plausible token: {why} (it is not shown)")
    return token.strip()


def _tokens_file_agents(text: str) -> list[dict] | None:
    """The agents' entries when text is a judge's tokens file ({"agents": [...]}, JSON or
    YAML), else None. The parser's own errors are dropped: they quote the text."""
    import yaml
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError:
        return None
    if isinstance(doc, dict) and isinstance(doc.get("agents"), list):
        return [e for e in doc["agents"] if isinstance(e, dict)]
    return None
