"""The package as a maintainer meets it: modules in layers with no import circle, and files short
enough to hold one idea.

The layering is declared once, in the docstring of scripts/ablation/__init__.py (a module per line,
lowest first); these tests read it from there.
"""

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import ablation

REPO = Path(__file__).resolve().parents[2]
PACKAGE = Path(ablation.__file__).resolve().parent
MODULES = sorted(p.stem for p in PACKAGE.glob("*.py") if p.stem != "__init__")


def declared_order() -> list[str]:
    """The modules as the package's docstring lists them: one per indented line, name first."""
    doc = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text(encoding="utf-8")))
    return re.findall(r"^ {4}([a-z_]+) {2,}\S", doc, flags=re.MULTILINE)


def package_imports(module: str) -> list[tuple[int, str]]:
    """(line, module) for every import of a package module in ``module``'s source, at its top or
    inside a function: ``from . import x``, ``from .x import y``, ``from ablation import x``,
    ``from ablation.x import y``, ``import ablation.x``. Names of the package's root (paths, git
    helpers) are not modules and are left out."""
    found = []
    for node in ast.walk(ast.parse((PACKAGE / f"{module}.py").read_text(encoding="utf-8"))):
        names = []
        if isinstance(node, ast.ImportFrom):
            dotted = node.module or ""
            if node.level == 1 or dotted == "ablation":
                names = [dotted] if dotted and node.level else [a.name for a in node.names]
            elif dotted.startswith("ablation."):
                names = [dotted.split(".")[1]]
        elif isinstance(node, ast.Import):
            names = [a.name.split(".")[1] for a in node.names if a.name.startswith("ablation.")]
        found += [(node.lineno, name) for name in names if name in MODULES]
    return found


def test_the_docstring_declares_every_module_of_the_package_once():
    order = declared_order()
    assert len(order) == len(set(order)), f"declared twice: {sorted({m for m in order if order.count(m) > 1})}"
    assert sorted(order) == MODULES, (
        f"not declared: {sorted(set(MODULES) - set(order))}; declared but no such module: {sorted(set(order) - set(MODULES))}"
    )


def test_each_module_imports_only_modules_below_it_in_the_declared_order():
    """Every import counts, also one inside a function: an import circle needs one import that goes
    up the order, wherever it stands, so none can be dodged by moving it into a function."""
    rank = {m: i for i, m in enumerate(declared_order())}
    upward = [
        f"{module}.py:{line} imports {imported}, declared above it"
        for module in MODULES
        for line, imported in package_imports(module)
        if rank[imported] >= rank[module]
    ]
    assert not upward, "\n".join(upward)


def test_the_order_check_reads_imports_inside_functions_too():
    # forkserver imports train only where a job trains in the client's own process
    assert "train" in {name for _, name in package_imports("forkserver")}


# One interpreter imports each module first and alone: before each, every module of the package is
# dropped from sys.modules (torch, numpy and the rest stay loaded, which no circle depends on).
IMPORT_EACH_ALONE = """
import importlib, sys, traceback
failed = []
for module in sys.argv[1:]:
    for name in [n for n in sys.modules if n == "ablation" or n.startswith("ablation.")]:
        del sys.modules[name]
    try:
        importlib.import_module("ablation." + module)
    except Exception:
        failed.append("ablation." + module + ":\\n" + traceback.format_exc()[-2000:])
sys.exit("\\n".join(failed) or None)
"""


def test_every_module_imports_first_and_alone():
    """Imported first and alone, each module finds every module it needs fully initialised: what a
    circle of imports breaks for the module through which the circle is entered."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PACKAGE.parent), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, *MODULES], capture_output=True, text=True,
                          cwd=REPO, env=env, timeout=600, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr


def test_importing_each_module_alone_finds_a_planted_circle(tmp_path):
    (tmp_path / "ablation").mkdir()
    (tmp_path / "ablation" / "__init__.py").write_text("")
    (tmp_path / "ablation" / "low.py").write_text("from .high import y\nx = 1\n")
    (tmp_path / "ablation" / "high.py").write_text("from .low import x\ny = 2\n")
    proc = subprocess.run([sys.executable, "-c", IMPORT_EACH_ALONE, "low", "high"], capture_output=True, text=True,
                          env={**os.environ, "PYTHONPATH": str(tmp_path)}, timeout=60, check=False)  # fmt: skip
    assert proc.returncode == 1
    assert "ablation.low:" in proc.stderr and "ablation.high:" in proc.stderr and "partially initialized" in proc.stderr


def test_no_file_of_code_under_scripts_or_benchmarks_is_longer_than_the_limit():
    """``make -s long-files`` lists them (machine-written JSON is data, not code, and is not listed)."""
    proc = subprocess.run(["make", "-s", "long-files"], cwd=REPO, capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "", f"files over the limit (lines, path):\n{proc.stdout}"



def private_uses(source: str) -> list[tuple[int, str]]:
    """(line, name) for every underscored name one module takes from another of the package:
    ``from .x import _y``, ``from ablation.x import _y``, and ``x._y`` where ``x`` is a package
    module imported by the module (under any name)."""
    tree = ast.parse(source)
    modules, found = {}, []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            dotted = node.module or ""
            from_package = node.level == 1 or dotted == "ablation" or dotted.startswith("ablation.")
            for alias in node.names:
                if from_package and dotted in ("", "ablation") and alias.name in MODULES:
                    modules[alias.asname or alias.name] = alias.name  # from . import x [as y]
                elif from_package and alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((node.lineno, f"{dotted or '.'}.{alias.name}"))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("ablation.") and alias.asname:
                    modules[alias.asname] = alias.name.split(".")[1]
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in modules
                and node.attr.startswith("_") and not node.attr.startswith("__")):  # fmt: skip
            found.append((node.lineno, f"{modules[node.value.id]}.{node.attr}"))
    return found


def test_no_module_uses_another_modules_underscored_names():
    """What another module needs is public: 0 cross-module uses of underscored names."""
    uses = [f"{m}.py:{line} uses {name}" for m in MODULES
            for line, name in private_uses((PACKAGE / f"{m}.py").read_text(encoding="utf-8"))]  # fmt: skip
    assert len(uses) == 0, "\n".join(uses)


def test_the_private_name_check_finds_each_form_of_use():
    planted = "from . import stats\nfrom .measures import _num\nfrom . import config as cfg\nx = stats._pair_frame\ny = cfg._same_value\n"
    assert [name for _, name in private_uses(planted)] == ["measures._num", "stats._pair_frame", "config._same_value"]


def test_package_modules_are_imported_under_whole_word_names():
    """``from . import seedtests``, not ``seedtests as T``: an alias, where one is needed, is a word."""
    short = []
    for m in MODULES:
        for node in ast.walk(ast.parse((PACKAGE / f"{m}.py").read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.level == 1 or (node.module or "").startswith("ablation")):
                short += [f"{m}.py:{node.lineno} imports {a.name} as {a.asname}" for a in node.names
                          if a.asname and a.name in MODULES and len(a.asname) < 4]  # fmt: skip
    assert not short, "\n".join(short)
