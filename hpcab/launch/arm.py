"""An arm file (schemas/arm.schema.json): what a campaign runs, where, and how many of each.

load_arm(path) validates the YAML against the schema, then what a schema cannot say: the
role counts fit the allocation asked for, an inference role has a command, an llm agent
has a model. Every error names the file and the field.
"""

from __future__ import annotations

from pathlib import Path

import attrs

from hpcab.errors import InputError
from hpcab.schema import read_yaml, validate

ROLES = ("judge", "inference", "agent")        # the order they are started in


@attrs.frozen
class Role:
    name: str
    count: int
    command: tuple[str, ...] = ()
    args: tuple[str, ...] = ()
    image: str | None = None
    gpus: int = 0
    mpi: dict | None = None          # judge only: {"ranks", "nodes", "launcher"} (docs/mpi.md)


@attrs.frozen
class Executor:
    kind: str                       # local | slurm
    partition: str | None = None
    time_minutes: int = 60
    nodes: int = 1
    tasks_per_node: int | None = None
    cpus_per_task: int = 1
    mem_gb: float | None = None
    gpus_per_node: int = 0
    sbatch: dict = attrs.field(factory=dict)


@attrs.frozen
class Arm:
    path: Path
    experiment: str
    output: Path
    executor: Executor
    roles: dict[str, Role]
    optimizer: str
    options: dict
    kernels: str
    legs: tuple[str, ...]           # kernel selectors, one leg each (default: one leg of kernels)
    model: dict | None
    budgets: dict
    rendezvous_timeout_s: float
    images_lock: Path | None
    raw: dict
    repeats: int = 1                # attempts at each task: the legs run this many times over

    def attempt(self, leg: int) -> int:
        """Which attempt (0 .. repeats - 1) leg `leg` is."""
        return leg // max(len(self.legs) // self.repeats, 1)

    @property
    def name(self) -> str:
        return arm_name(self.raw)

    def role(self, name: str) -> Role:
        return self.roles.get(name) or Role(name, 0)

    @property
    def instances(self) -> int:
        return sum(r.count for r in self.roles.values())


def arm_name(raw: dict) -> str:
    """An arm's name within its experiment: its `arm` field, else the optimizer and the
    model's name (what the observations table and the figures show)."""
    if raw.get("arm"):
        return raw["arm"]
    model = (raw.get("model") or {}).get("name")
    return f"{raw['optimizer']}/{model}" if model else raw["optimizer"]


def load_arm(path: Path | str) -> Arm:
    path = Path(path)
    data = read_yaml(path, "arm file")
    if not isinstance(data, dict):
        raise InputError(str(path), "", "an arm file is a YAML mapping (schemas/arm.schema.json)")
    validate(data, "arm", path)
    ex = data["executor"]
    executor = Executor(ex["kind"], ex.get("partition"), ex.get("time_minutes", 60), ex.get("nodes", 1),
                        ex.get("tasks_per_node"), ex.get("cpus_per_task", 1), ex.get("mem_gb"),
                        ex.get("gpus_per_node", 0), dict(ex.get("sbatch", {})))
    roles = {name: Role(name, spec["count"], tuple(spec.get("command", ())), tuple(spec.get("args", ())),
                        spec.get("image"), spec.get("gpus", 0),
                        {"ranks": spec["mpi"]["ranks"], "nodes": spec["mpi"].get("nodes", 1),
                         "launcher": spec["mpi"].get("launcher", "mpirun")} if "mpi" in spec else None)
             for name, spec in data["roles"].items()}
    arm = Arm(path, data["experiment"], Path(data.get("output", "runs")), executor, roles, data["optimizer"],
              given_options(data, path), data["kernels"],
              tuple(data.get("legs") or (data["kernels"],)) * data.get("repeats", 1),
              data.get("model"), dict(data.get("budgets", {})),
              float(data.get("rendezvous_timeout_s", 300)),
              (path.parent / data["images_lock"]) if "images_lock" in data else None, data,
              repeats=data.get("repeats", 1))
    check_arm(arm)
    return arm


GIVEN_FIELDS = ("skills", "tools", "prompt", "hints")      # what the agent is given (docs/agent_tools.md)
TAKES_GIVEN = ("llm",)                                      # the optimizers those are options of


def given_options(data: dict, path: Path) -> dict:
    """The optimizer's options, with the arm's fields for what the agent is given (skills,
    tools, prompt, hints) as the options of the same names: arms that differ only in those
    differ only there. Each is an error for an optimizer that takes none, or named twice."""
    options = dict(data.get("options", {}))
    for name in GIVEN_FIELDS:
        if name not in data:
            continue
        if data["optimizer"] not in TAKES_GIVEN:
            raise InputError(str(path), name, f"the {data['optimizer']} optimizer is given no {name} (only "
                                              f"{', '.join(TAKES_GIVEN)} is); remove the field")
        if name in options:
            raise InputError(str(path), name, f"given twice: as the arm's {name} and as options.{name}; keep one")
        value = data[name]
        options[name] = ",".join(value) if isinstance(value, list) else value
    return options


def check_arm(arm: Arm) -> None:
    """What the schema cannot say, each error naming the field."""
    src = str(arm.path)
    ex = arm.executor
    if arm.role("judge").count < 1:
        raise InputError(src, "roles.judge.count", "an arm needs at least one judge")
    if arm.role("agent").count < 1:
        raise InputError(src, "roles.agent.count", "an arm needs at least one agent worker")
    inference = arm.role("inference")
    if inference.count and not inference.command:
        raise InputError(src, "roles.inference.command", "an inference role needs its server's command "
                                                         "(e.g. [vllm, serve, '{model}', --port, '{port}'])")
    if arm.optimizer == "llm" and not arm.model:
        raise InputError(src, "model", "the llm optimizer needs a model: {name: ..., api: openai} and an inference "
                                       "role or model.url")
    if arm.optimizer == "llm" and not inference.count and not (arm.model or {}).get("url"):
        raise InputError(src, "model.url", "with no inference role, the llm optimizer needs model.url")
    if ex.kind == "local" and ex.nodes != 1:
        raise InputError(src, "executor.nodes", f"the local executor runs on this one machine, not {ex.nodes} nodes")
    if ex.kind == "slurm" and not ex.partition:
        raise InputError(src, "executor.partition", "a slurm arm names its partition")
    # The allocation: every role instance takes one task.
    tasks = ex.nodes * (ex.tasks_per_node or arm.instances)
    if arm.instances > tasks:
        raise InputError(src, "executor.tasks_per_node",
                         f"the roles need {arm.instances} tasks (judge {arm.role('judge').count} + inference "
                         f"{inference.count} + agent {arm.role('agent').count}) but the arm asks for {ex.nodes} "
                         f"node(s) x {ex.tasks_per_node} task(s) = {tasks}")
    for name, role in arm.roles.items():
        if role.mpi is None:
            continue
        if name != "judge":
            raise InputError(src, f"roles.{name}.mpi", "only the judge grades distributed submissions")
        if role.mpi["nodes"] != 1:
            raise InputError(src, "roles.judge.mpi.nodes", f"{role.mpi['nodes']}: the ranks of a grade run on the "
                                                           "judge's node (its pipes and buffers are node-local); "
                                                           "expected 1")
        if role.mpi["launcher"] == "srun" and ex.kind != "slurm":
            raise InputError(src, "roles.judge.mpi.launcher", "srun starts ranks inside a Slurm allocation: use "
                                                              "mpirun with the local executor")
    gpus = sum(r.count * r.gpus for r in arm.roles.values())
    if gpus > ex.nodes * ex.gpus_per_node:
        raise InputError(src, "executor.gpus_per_node",
                         f"the roles need {gpus} GPU(s) but the arm asks for {ex.nodes} node(s) x "
                         f"{ex.gpus_per_node} GPU(s)")
