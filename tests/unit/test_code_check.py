"""Runs that know their code: a run in the store against the training code here (store.check_code)."""

import json
from pathlib import Path

from ablation import provenance
from ablation import store as run_store

def _run(store: Path, name: str, prov: dict | None, complete: bool = True) -> str:
    """A run folder with ``prov`` as its provenance.json (None: none), complete or not."""
    folder = store / name
    folder.mkdir(parents=True)
    if prov is not None:
        (folder / "provenance.json").write_text(json.dumps(prov), encoding="utf-8")
    if complete:
        (folder / "metrics.csv").write_text("params_sha256\nabc\n", encoding="utf-8")
    return name


def _trained_here(threads: int = 1, code: dict | None = None) -> dict:
    """A run's provenance as training with ``code`` (default: the code here) writes it."""
    code = code or provenance.training_code()
    return {"settings": {"seed": 0}, "threads": threads, "torch": provenance.torch_version(), "training_code": code,
            "training_fingerprint": provenance.training_fingerprint(threads, None, code)}  # fmt: skip


def test_each_run_is_current_stale_from_before_fingerprints_or_not_trained(tmp_path):
    edited = dict(provenance.training_code(), **{"model.py": "0" * 64})
    runs = [
        _run(tmp_path, "current", _trained_here()),
        _run(tmp_path, "edited", _trained_here(code=edited)),
        _run(tmp_path, "threads", _trained_here(threads=2)),
        _run(tmp_path, "old", {"settings": {"seed": 0}, "torch": "1.0"}),  # a provenance of before fingerprints
        _run(tmp_path, "missing", _trained_here(), complete=False),
    ]
    checked = run_store.check_code(runs + ["current"], threads=1, store=tmp_path)
    assert checked.current == ["current"]
    assert checked.other_code == {"edited": ["model.py"], "threads": ["2 threads, here 1"]}
    assert checked.before_fingerprints == ["old"]
    assert checked.not_trained == ["missing"]
    lines = run_store.code_lines(checked, "make retrain-stale")
    assert lines[0] == ("2 runs were trained by other training code (model.py changed; 2 threads, here 1); "
                        "`make retrain-stale` retrains them.")  # fmt: skip
    assert lines[1].startswith("1 run was trained before runs recorded their training code")
    assert lines[2:] == ["1 run was trained by the training code here.", "1 run is not trained yet."]


def test_a_run_trained_at_the_configured_thread_count_is_current_there(tmp_path):
    _run(tmp_path, "two", _trained_here(threads=2))
    assert run_store.check_code(["two"], threads=2, store=tmp_path).current == ["two"]


def test_a_plugin_s_code_counts_as_the_run_s_settings_record_it(tmp_path):
    plugin = {"pos_enc": {"mine": {"module": "my_plugin", "sha256": "1" * 64}}}
    prov = _trained_here() | {"settings": {"seed": 0, "plugin_code": plugin}}
    prov["training_fingerprint"] = provenance.training_fingerprint(1, plugin)
    _run(tmp_path, "plugin", prov)
    assert run_store.check_code(["plugin"], threads=1, store=tmp_path).current == ["plugin"]
