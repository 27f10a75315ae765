"""The pins by role. requirements.txt is the full lock (what `make venv` installs, test tools
included); pyproject.toml's [project.dependencies] are the runtime dependencies, the same in
environment.yml (the rules' conda environment); its `test` extra holds the test tools. Every pin
equals the lock's; torch is pinned exactly (an unpinned torch pulls a CUDA build)."""

import ast
import importlib.metadata
import re
import sys
import tomllib

import yaml

from conftest import REPO

TEST_TOOLS = {"pytest", "pytest-xdist", "playwright", "mutmut", "snakefmt"}
# Runtime dependencies that no module of the package imports, and what needs them at run time.
USED_WITHOUT_IMPORT = {
    "psutil": "Snakemake's benchmark: directive, on every job rule",
    "snakemake-executor-plugin-slurm": "workflow/profiles/slurm (executor: slurm)",
}


def _name(requirement: str) -> str:
    return re.sub(r"[-_.]+", "-", re.split(r"[=<>!~;\[ ]", requirement, maxsplit=1)[0]).lower()


def _pins(lines) -> dict[str, str]:
    out = {}
    for line in lines:
        line = line.split("#", 1)[0].strip()
        m = re.fullmatch(r"([A-Za-z0-9_.\-\[\]]+)==([^\s;]+)", line)
        if m:
            out[_name(m.group(1))] = m.group(2)
    return out


def _project() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())["project"]


def _conda_pins() -> dict[str, str]:
    env = yaml.safe_load((REPO / "environment.yml").read_text())
    assert "python=3.11" in env["dependencies"]
    return _pins(next(d["pip"] for d in env["dependencies"] if isinstance(d, dict)))


def test_runtime_pins_agree_in_pyproject_and_environment_yml_and_equal_the_lock():
    lock = _pins((REPO / "requirements.txt").read_text().splitlines())
    runtime = _pins(_project()["dependencies"])
    test = _pins(_project()["optional-dependencies"]["test"])
    assert runtime == _conda_pins(), "pyproject.toml's dependencies and environment.yml list different pins"
    for name, version in (runtime | test).items():
        assert lock.get(name) == version, f"{name}: requirements.txt has {lock.get(name)}, pyproject {version}"
    assert runtime["torch"] == "2.13.0"


def test_the_test_tools_are_the_test_extra_and_not_runtime_dependencies():
    runtime = set(_pins(_project()["dependencies"]))
    assert set(_pins(_project()["optional-dependencies"]["test"])) == TEST_TOOLS
    assert not runtime & TEST_TOOLS, "a test tool is a runtime dependency"
    assert not set(_conda_pins()) & TEST_TOOLS, "a test tool is in the rules' conda environment"


def _imported_top_modules() -> set[str]:
    """Top-level modules that the package and the workflow import (absolute imports)."""
    files = list((REPO / "scripts" / "ablation").glob("*.py"))
    snakefiles = [REPO / "workflow" / "Snakefile", *(REPO / "workflow" / "rules").glob("*.smk")]
    found = set()
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                found |= {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
                found.add(node.module.split(".")[0])
    for path in snakefiles:  # Snakemake's syntax is not Python's: its import lines are
        found |= set(re.findall(r"^(?:import|from) (\w+)", path.read_text(encoding="utf-8"), re.M))
    return found - set(sys.stdlib_module_names) - {"ablation"}


def test_every_runtime_dependency_is_what_the_package_or_the_rules_import_or_run():
    runtime = set(_pins(_project()["dependencies"]))
    by_module = importlib.metadata.packages_distributions()
    imported = {_name(dist) for module in _imported_top_modules() for dist in by_module.get(module, [module])}
    assert imported - runtime == set(), "imported by the package, not a runtime dependency"
    assert runtime - imported == set(USED_WITHOUT_IMPORT), "a runtime dependency nothing imports or runs"


def test_every_lock_line_is_pinned():
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            assert "==" in line, f"unpinned requirement: {line}"
