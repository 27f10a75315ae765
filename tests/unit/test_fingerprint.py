"""A run's training fingerprint: which code it covers, and what changes it."""

import ast

from ablation import PACKAGE_DIR, provenance

# train.py's imports that compute nothing of a run's numbers: file writing, provenance, column names,
# the plugin loader and its error lines (a plugin's own code is in the fingerprint through its settings)
RECORD_ONLY = {"io.py", "provenance.py", "outputs.py", "plugins.py", "validation.py", "__init__.py"}


def _imports(name: str) -> set[str]:
    """The package's modules a module imports, at its top or inside a function."""
    found = set()
    for node in ast.walk(ast.parse((PACKAGE_DIR / name).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                found.add(node.module.split(".")[0] + ".py")
            else:
                found |= {alias.name + ".py" for alias in node.names if (PACKAGE_DIR / f"{alias.name}.py").exists()}
    return found


def test_the_training_path_is_train_py_import_closure_less_the_recording_modules():
    closure, todo = set(), ["train.py"]
    while todo:
        name = todo.pop()
        if name in closure:
            continue
        closure.add(name)
        todo += sorted(_imports(name))
    assert set(provenance.TRAINING_PATH) == closure - RECORD_ONLY


def test_the_fingerprint_changes_with_code_torch_threads_and_plugins_only():
    code = provenance.training_code()
    base = provenance.training_fingerprint(1, {}, code)
    assert base == provenance.training_fingerprint(1, {}, dict(code))
    assert provenance.training_fingerprint(2, {}, code) != base
    assert provenance.training_fingerprint(1, {"pos_enc": {"mine": {"module": "m", "sha256": "0"}}}, code) != base
    edited = dict(code, **{"train.py": "0" * 64})
    assert provenance.training_fingerprint(1, {}, edited) != base
    assert set(code) == set(provenance.TRAINING_PATH) and all(len(v) == 64 for v in code.values())
