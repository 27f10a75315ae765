"""The modules that decide results, the tests that judge each, and when a row is out of date: a file it
depends on (the module, its tests, tests/conftest.py, or a package module any of these imports, directly
or through each other) changed since the commit the row was measured at."""

from __future__ import annotations

import ast
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "scripts" / "ablation"

STATS_TESTS = ["tests/unit/test_measures.py", "tests/unit/test_intervals.py", "tests/unit/test_significance.py",
               "tests/unit/test_seed_variance.py", "tests/unit/test_stats.py", "tests/unit/test_holm_tables.py",
               "tests/simulation/test_stats_simulation.py"]

# The modules that decide results, with the unit tests that exercise them; -k deselects tests that run
# Snakemake or time a whole pipeline (seconds to minutes each: not unit tests).
MODULES: dict[str, dict] = {
    "io": {"tests": ["tests/unit/test_io.py"]},
    # the order task (test_data) and the token tasks the length studies build (test_length)
    "data": {"tests": ["tests/unit/test_data.py", "tests/unit/test_length.py"]},
    "model": {"tests": ["tests/unit/test_model.py", "tests/unit/test_variants.py", "tests/unit/test_checks.py",
                        "tests/unit/test_model_torch_reference.py", "tests/unit/test_model_definitions.py"]},
    # validate resolves plugins' names and refuses an exact claim on a task without twins: test_plugins checks both
    "config": {"tests": ["tests/unit/test_config_validation.py", "tests/unit/test_plugins.py"], "deselect": "snakemake"},
    "validation": {"tests": ["tests/unit/test_config_validation.py"], "deselect": "snakemake"},
    # the statistics of one study, one idea a module (ablation/__init__.py lists them); the same tests judge each
    **{name: {"tests": STATS_TESTS, "deselect": "ten_thousand"}
       for name in ("measures", "intervals", "variance", "stats")},
    # the graphical procedure that judges a family's claims and scopes is reached through the verdicts' and the
    # scopes' family tests
    "significance": {"tests": [*STATS_TESTS, "tests/unit/test_verdicts.py", "tests/unit/test_scope.py",
                               "tests/unit/test_scope_edges.py"], "deselect": "ten_thousand"},
    # a claim's walk: its kind (kinds), its seed units (seed_units), its test (seedtests), its verdict (claims)
    "kinds": {"tests": ["tests/unit/test_kinds_edges.py", "tests/unit/test_claims.py", "tests/unit/test_claim_kinds.py",
                        "tests/unit/test_config_validation.py"],
              "deselect": "snakemake"},
    "seed_units": {"tests": ["tests/unit/test_seed_units.py", "tests/unit/test_claims.py", "tests/unit/test_exact_claims.py"]},
    "seedtests": {"tests": ["tests/unit/test_seedtests.py", "tests/unit/test_seedtests_edges.py", "tests/unit/test_seedtests_reading.py",
                            "tests/unit/test_claims.py", "tests/unit/test_sequential.py", "tests/unit/test_claim_kinds.py",
                            "tests/simulation/test_sequential_rules.py"]},
    "verdicts": {"tests": ["tests/unit/test_verdicts.py", "tests/unit/test_claims.py", "tests/unit/test_exact_claims.py", "tests/unit/test_claim_kinds.py",
                           "tests/unit/test_adaptive.py"]},
    "claims": {"tests": ["tests/unit/test_claims_edges.py", "tests/unit/test_claims.py", "tests/unit/test_exact_claims.py", "tests/unit/test_claim_kinds.py"]},
    # where a verdict holds: the universes' tests and the intersection-union and Holm rules over them
    "scope": {"tests": ["tests/unit/test_scope_edges.py", "tests/unit/test_scope.py", "tests/simulation/test_scope_simulation.py"]},
    # the anytime-valid statistics of adaptive studies (claims' p-values there; the rounds' stopping rule)
    "sequential": {"tests": ["tests/unit/test_sequential.py", "tests/unit/test_adaptive.py", "tests/simulation/test_sequential_rules.py"]},
}
GOAL = {"measures": 0.90, "intervals": 0.90, "significance": 0.90, "variance": 0.90, "stats": 0.90, "claims": 0.90,
        "sequential": 0.90, "kinds": 0.90, "seed_units": 0.90, "seedtests": 0.90, "verdicts": 0.90, "scope": 0.90}  # statistics; the others: 0.80
DEFAULT_GOAL = 0.80


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def package_imports(path: Path) -> set[str]:
    """The package's modules a Python file imports (``from . import x``, ``from .x import``, ``from
    ablation import x``, ``from ablation.x import``, ``import ablation.x``), as file names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or module == "ablation":
                names |= {module} if module and node.level else {a.name for a in node.names}
            if module.startswith("ablation."):
                names.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("ablation.")}
    return {f"{n}.py" for n in names if (PACKAGE / f"{n}.py").is_file()}


def watched(name: str) -> list[str]:
    """The files whose change can change ``name``'s row: the module, its tests, tests/conftest.py and
    every package module these import, directly or through each other (repository-relative)."""
    files = {PACKAGE / f"{name}.py", *(REPO / t for t in MODULES[name]["tests"]), REPO / "tests" / "conftest.py"}
    todo = [f for f in files if f.exists()]
    while todo:
        for imported in package_imports(todo.pop()):
            path = PACKAGE / imported
            if path not in files:
                files.add(path)
                todo.append(path)
    return sorted(str(f.relative_to(REPO)) for f in files if f.exists())


def changed_since(name: str, row: dict) -> list[str]:
    """The watched files of ``name`` that differ between its row's commit and the working tree; all
    of them when that commit is unknown here or was measured with uncommitted changes (-dirty)."""
    files = watched(name)
    commit = row["commit"]
    if commit.endswith("-dirty"):
        return files
    try:
        changed = git("diff", "--name-only", commit, "--", *files).splitlines()
    except subprocess.CalledProcessError:
        return files
    return sorted(set(changed) | set(git("ls-files", "--others", "--exclude-standard", "--", *files).splitlines()))


def out_of_date(data: dict) -> dict[str, list[str]]:
    """Module -> the watched files changed since its row (every file for a module not measured)."""
    rows = data["modules"]
    out = {name: changed_since(name, rows[name]) if name in rows else watched(name) for name in MODULES}
    return {name: files for name, files in out.items() if files}
