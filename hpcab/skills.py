"""The skill pages an agent may be given (skills/<name>/SKILL.md, the Agent Skills format:
YAML front matter with `name` and `description`, then Markdown; docs/agent_tools.md). Served
by the judge (GET /skills, GET /skills/<name>), as MCP resources (skill://<name>), and to the
LLM agent (its `skills=` option and `read_skill` tool)."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import yaml

from hpcab.errors import InputError
from hpcab.paths import skills_dir

NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
MAX_NAME = 64
MAX_DESCRIPTION = 1024
FRONT = re.compile(r"\A---\n(.*?)\n---\n", re.S)


@attrs.frozen
class Skill:
    name: str
    description: str
    content: str            # the whole page, front matter included
    path: Path

    @property
    def body(self) -> str:
        """The page without its front matter."""
        return FRONT.sub("", self.content, count=1).lstrip("\n")

    def summary(self) -> dict:
        return {"name": self.name, "description": self.description}


def load_skill(path: Path) -> Skill:
    """One SKILL.md, checked: its front matter's name is its folder's, its description says
    when to read it."""
    where = str(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError(where, "", f"cannot read the skill page: {exc}") from None
    m = FRONT.match(text)
    if m is None:
        raise InputError(where, "front matter", "expected the page to open with '---', YAML with name and "
                                                "description, and '---'")
    try:
        meta = yaml.safe_load(m.group(1))
    except yaml.YAMLError as exc:
        raise InputError(where, "front matter", f"not YAML: {exc}") from None
    if not isinstance(meta, dict):
        raise InputError(where, "front matter", "expected a mapping with name and description")
    name, description = meta.get("name"), meta.get("description")
    if not isinstance(name, str) or not NAME.match(name) or len(name) > MAX_NAME:
        raise InputError(where, "name", f"expected lowercase letters, digits and single hyphens, at most {MAX_NAME} "
                                        f"characters, got {name!r}")
    if name != path.parent.name:
        raise InputError(where, "name", f"{name!r} is not its folder's name {path.parent.name!r}")
    if not isinstance(description, str) or not description.strip() or len(description) > MAX_DESCRIPTION:
        raise InputError(where, "description", f"expected text of 1 to {MAX_DESCRIPTION} characters: when to read "
                                               f"this page")
    return Skill(name, description.strip(), text, path)


def load_skills(root: Path | None = None) -> dict[str, Skill]:
    """Every skill under root (default: the project's skills/), by name, in name order."""
    root = Path(root) if root is not None else skills_dir()
    if not root.is_dir():
        return {}
    skills = [load_skill(p) for p in sorted(root.glob("*/SKILL.md"))]
    return {s.name: s for s in skills}


def select_skills(skills: dict[str, Skill], choice: str) -> list[Skill]:
    """all, none, or NAME,NAME,... (each a known skill): the LLM agent's skills= option and an
    arm's skills: field."""
    choice = choice.strip()
    if choice == "all":
        return list(skills.values())
    if choice in ("none", ""):
        return []
    names = [n.strip() for n in choice.split(",") if n.strip()]
    unknown = [n for n in names if n not in skills]
    if unknown:
        raise InputError("skills", unknown[0], f"no such skill; expected all, none or names among: "
                                               f"{', '.join(skills)}")
    return [skills[n] for n in dict.fromkeys(names)]
