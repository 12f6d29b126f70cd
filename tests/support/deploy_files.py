"""Readers for the deployment files at the top of the repository: the Dockerfile, compose.yaml,
.env.example and requirements.lock — parsed the way their tools read them, for the packaging tests."""

from __future__ import annotations

import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from entrypoints.settings import PREFIX, Settings

ROOT = Path(__file__).resolve().parents[2]
DOCKERFILE = ROOT / "Dockerfile"
COMPOSE = ROOT / "compose.yaml"
ENV_EXAMPLE = ROOT / ".env.example"
LOCK = ROOT / "requirements.lock"

SETTING_VARIABLES = frozenset(PREFIX + name.upper() for name in Settings.model_fields)
VARIABLE = re.compile(r"\bVIDRELAY_[A-Z0-9_]+")


@dataclass(frozen=True, slots=True)
class Instruction:
    keyword: str
    args: str

    def exec_form(self) -> list[str] | None:
        """The JSON-array form (`["vidrelay"]`), or None for the shell form."""
        try:
            value = json.loads(self.args)
        except json.JSONDecodeError:
            return None
        return value if isinstance(value, list) else None


def dockerfile(path: Path = DOCKERFILE) -> list[Instruction]:
    """Instructions with continuations joined and comment lines dropped, as BuildKit reads them."""
    instructions: list[Instruction] = []
    pending = ""
    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith("\\"):
            pending += line[:-1] + " "
            continue
        keyword, _, args = (pending + line).partition(" ")
        instructions.append(Instruction(keyword.upper(), " ".join(args.split())))
        pending = ""
    return instructions


def stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    """One list per FROM, the FROM first."""
    found: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            found.append([])
        if found:
            found[-1].append(instruction)
    return found


def env_of(stage: list[Instruction]) -> dict[str, str]:
    env: dict[str, str] = {}
    for instruction in stage:
        if instruction.keyword == "ENV":
            for word in shlex.split(instruction.args):
                name, _, value = word.partition("=")
                env[name] = value
    return env


def compose() -> dict[str, Any]:
    """compose.yaml with its anchors and `<<` merge keys resolved (YAML 1.1, as Compose reads it)."""
    loaded: dict[str, Any] = yaml.safe_load(COMPOSE.read_text(encoding="utf-8"))
    return loaded


def env_example() -> dict[str, str]:
    values: dict[str, str] = {}
    for line in ENV_EXAMPLE.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def locked() -> dict[str, tuple[str, int]]:
    """requirements.lock: canonical name -> (pinned version, number of hashes)."""
    pins: dict[str, tuple[str, int]] = {}
    for entry in re.split(r"\n(?=\S)", LOCK.read_text(encoding="utf-8")):
        first = entry.split("\\", 1)[0].strip()
        if not first or first.startswith("#"):
            continue
        requirement = Requirement(first)
        (specifier,) = requirement.specifier
        assert specifier.operator == "==", f"not pinned in the lock: {first}"
        pins[canonicalize_name(requirement.name)] = (specifier.version, entry.count("--hash=sha256:"))
    return pins


def duration_seconds(value: str) -> float:
    """A Compose duration (`45s`, `1m30s`, `1h`, `500ms`)."""
    units = {"h": 3600.0, "m": 60.0, "s": 1.0, "ms": 0.001, "us": 1e-6}
    parts = re.findall(r"(\d+(?:\.\d+)?)(ms|us|h|m|s)", value)
    if not parts or "".join(number + unit for number, unit in parts) != value:
        raise ValueError(f"not a Compose duration: {value!r}")
    return sum(float(number) * units[unit] for number, unit in parts)
