"""requirements.txt (full lock), pyproject.toml (direct dependencies) and environment.yml pin the
same packages at the same versions; torch is pinned exactly (an unpinned torch pulls a CUDA build)."""

import re
import tomllib

import yaml

from conftest import REPO


def _pins(lines) -> dict[str, str]:
    out = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([^\s;]+)", line)
        if m:
            out[re.sub(r"[-_.]+", "-", m.group(1)).lower()] = m.group(2)
    return out


def test_pins_agree():
    lock = _pins((REPO / "requirements.txt").read_text().splitlines())
    project = _pins(tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["dependencies"])
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    pip_section = next(d["pip"] for d in env["dependencies"] if isinstance(d, dict))
    conda_env = _pins(pip_section)
    assert project == conda_env, "pyproject.toml and environment.yml list different pins"
    for name, version in project.items():
        assert lock.get(name) == version, f"{name}: requirements.txt has {lock.get(name)}, pyproject {version}"
    assert project["torch"] == "2.13.0"
    assert "python=3.11" in env["dependencies"]


def test_every_lock_line_is_pinned():
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            assert "==" in line, f"unpinned requirement: {line}"
