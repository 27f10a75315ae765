"""Measured numbers and their code: every file the measuring scripts write is declared in
benchmarks/measured.py and carries its stamp (commit and date), and README.md and docs/*.md cite no
measured number whose file is older than the code it measures, unless they say it is out of date.
The planted cases run on a git clone of this repository, with commits of their own."""

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import REPO

_spec = importlib.util.spec_from_file_location("measured", REPO / "benchmarks" / "measured.py")
measured = sys.modules["measured"] = importlib.util.module_from_spec(_spec)  # dataclasses look it up there
_spec.loader.exec_module(measured)

SMOKE = "benchmarks/reproduce-smoke.md"  # a declared file that measures the package, among others
PLANTED = "The quick look takes 4.2 min"  # the paragraph the clones' README gains, citing SMOKE


def _git(root, *args) -> str:
    return subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True, text=True).stdout.strip()


def _commit_all(root, message: str) -> None:
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", message)


def test_the_readme_and_docs_cite_no_measured_number_out_of_step_with_its_file():
    if _git(REPO, "rev-parse", "--is-shallow-repository") == "true":
        pytest.skip("a shallow clone lacks the commits the stamps name")
    assert measured.problems() == []


def test_every_file_the_measuring_scripts_write_is_declared_and_stamped():
    written = _git(REPO, "ls-files", "--", "benchmarks/*.md", "benchmarks/*.json", "tests/cluster/*.md",
                   "tests/cluster/*.json").split()  # fmt: skip
    written = {p for p in written if not p.endswith("README.md")}
    declared = {m.path for m in measured.MEASURED}
    assert written - declared == set(), "written by a script but not declared in benchmarks/measured.py"
    for path in sorted(written):
        st = measured.read(REPO / path)
        assert st is not None, f"{path} carries no stamp"
        assert _git(REPO, "cat-file", "-t", st["commit"]) == "commit", path
    for m in measured.MEASURED:
        assert m.command.split()[1] in m.measures or m.command == "make mutation", f"{m.path}: its script"
        for code in m.measures:
            assert (REPO / code).exists(), f"{m.path} measures {code}, which does not exist"


def _measure(root) -> str:
    """Write reproduce-smoke.md stamped at ``root``'s HEAD, as the script does; its commit."""
    st = measured.stamp(root)
    (root / SMOKE).write_text(f"# Reproduction time of config/smoke.yaml\n\n{measured.line(st)}\n\n| total | 4.2 min |\n")
    return st["commit"]


def _cite(root, words: str) -> None:
    """README.md as committed at the clone's start, and one paragraph that cites the file's number."""
    readme = _git(root, "show", "HEAD~0:README.md") if not (root / ".readme").exists() else (root / ".readme").read_text()
    (root / ".readme").write_text(readme)
    (root / "README.md").write_text(f"{readme}\n\n{PLANTED} ({SMOKE}, {words}).\n")


@pytest.fixture
def clone(tmp_path):
    """A clone of this repository's HEAD whose README cites a freshly stamped reproduce-smoke.md."""
    root = tmp_path / "clone"
    subprocess.run(["git", "clone", "--quiet", "--no-hardlinks", str(REPO), str(root)], check=True)
    (root / ".git" / "info" / "exclude").write_text(".readme\n")
    _cite(root, f"measured at {_measure(root)}")
    _commit_all(root, "the smoke reproduction, measured and cited")
    return root


def _about_smoke(root) -> list[str]:
    """The problems found with the planted paragraph (the page's own citations are the other test's)."""
    return [p for p in measured.problems(root) if p.startswith(f"README.md: «{PLANTED}")]


def test_a_number_cited_from_a_current_file_passes(clone):
    assert _about_smoke(clone) == []


def test_a_number_whose_file_is_older_than_its_code_fails_until_remeasured_or_marked(clone):
    commit = measured.read(clone / SMOKE)["commit"]
    with (clone / "scripts" / "ablation" / "train.py").open("a") as fh:
        fh.write("\nCHANGED = 1  # a change of the code the smoke reproduction measures\n")
    _commit_all(clone, "train.py changes after the measurement")
    found = _about_smoke(clone)
    assert len(found) == 1 and "older than the code it measures" in found[0], found
    assert _git(clone, "log", "-1", "--format=%h") in found[0]  # names the commit that changed the code
    check = subprocess.run([sys.executable, "benchmarks/measured.py", "--check"], cwd=clone, capture_output=True,
                           text=True)  # fmt: skip
    assert check.returncode == 1 and SMOKE in check.stdout

    _cite(clone, f"measured at {commit}: out of date")  # said in words: passes
    _commit_all(clone, "the README says the number is out of date")
    assert _about_smoke(clone) == []

    _cite(clone, f"measured at {_measure(clone)}: out of date")  # measured again: the mark must go
    _commit_all(clone, "re-measured")
    found = _about_smoke(clone)
    assert len(found) == 1 and "no code it measures changed" in found[0], found


def test_a_commit_that_changes_only_comment_lines_of_the_code_leaves_the_number_current(clone):
    """A comment runs nothing: edited comment lines of the config and the package, and a new one,
    leave the measurement current; a code line in the same kind of commit does not."""
    config = clone / "config" / "smoke.yaml"
    text = config.read_text()
    first = next(line for line in text.splitlines() if line.lstrip().startswith("#"))
    config.write_text(text.replace(first, first + " (reworded)", 1))
    with (clone / "scripts" / "ablation" / "train.py").open("a") as fh:
        fh.write("\n    # an indented comment of its own\n")
    _commit_all(clone, "comments only")
    assert _about_smoke(clone) == []
    with (clone / "scripts" / "ablation" / "train.py").open("a") as fh:
        fh.write("\n# a comment beside a code line\nCHANGED = 1\n")
    _commit_all(clone, "a code line")
    found = _about_smoke(clone)
    assert len(found) == 1 and _git(clone, "log", "-1", "--format=%h") in found[0], found


def test_a_cited_number_that_does_not_name_its_commit_fails(clone):
    _cite(clone, "measured on a 2-core machine")
    found = _about_smoke(clone)
    assert len(found) == 1 and "without the commit it was measured at" in found[0], found


def test_a_cited_file_that_is_not_declared_fails(clone):
    with (clone / "docs" / "speed.md").open("a") as fh:
        fh.write("\nA probe took 3 s (benchmarks/probes/undeclared.md).\n")
    found = [p for p in measured.problems(clone) if "undeclared.md" in p]
    assert len(found) == 1 and "does not declare" in found[0], found


def test_the_code_a_reproduction_leaves_unused_is_imported_by_nothing_it_runs():
    """A file declared unused by a measurement is imported by no other module of the package, named by no
    workflow file, and called by no line of the Makefile's reproduce target, so its change cannot
    change what was measured."""
    package = sorted((REPO / "scripts" / "ablation").glob("*.py"))
    workflow = [p for p in (REPO / "workflow").rglob("*") if p.is_file() and p.suffix in ("", ".smk", ".py")]
    recipe = re.search(r"^reproduce:.*?\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M)[1]
    unused = {u for m in measured.MEASURED for u in m.unused}
    assert unused, "no measurement declares code it leaves unused"
    for path in sorted(unused):
        name = Path(path).stem
        imports = re.compile(rf"(from \.|import \.|ablation\.|from \. import [^\n]*\b|from ablation import [^\n]*\b){name}\b")
        users = [p.relative_to(REPO).as_posix() for p in [*package, *workflow]
                 if p.relative_to(REPO).as_posix() not in unused and imports.search(p.read_text(encoding="utf-8"))]  # fmt: skip
        assert users == [], f"{path} is declared unused by a reproduction, but {users} import it"
        assert f"ablation.{name}" not in recipe, f"make reproduce calls {path}"


def test_a_commit_that_changes_only_code_a_measurement_leaves_unused_keeps_it_current(clone):
    """readme.py writes the README from reference/; `make reproduce` never runs it, so a change of it
    leaves the full reproduction's time current, while a change of train.py does not."""
    full = next(m for m in measured.MEASURED if m.path == "benchmarks/reproduce.md")
    commit = _measure(clone)
    _commit_all(clone, "measured")
    with (clone / "scripts" / "ablation" / "readme.py").open("a") as fh:
        fh.write("\nCHANGED = 1  # a change of the README's writer\n")
    _commit_all(clone, "readme.py changes")
    assert measured.newer_code(clone, full, commit) == []
    with (clone / "scripts" / "ablation" / "train.py").open("a") as fh:
        fh.write("\nCHANGED = 1  # a change of what the reproduction runs\n")
    _commit_all(clone, "train.py changes")
    assert measured.newer_code(clone, full, commit) == [_git(clone, "log", "-1", "--format=%h")]
