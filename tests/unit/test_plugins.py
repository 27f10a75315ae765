"""Plugins in one process: a plugin's names reach every run that uses them with the plugin's code in
their hash, and no other run; task settings are part of a run's identity; what a task without swap
twins cannot do is refused in one line. (tests/workflow/test_own_ablation.py runs a plugin through Snakemake.)"""

import sys
import textwrap

import pytest

from ablation import data, design, model, plugins
from ablation import config as C
from ablation.settings import from_json
from ablation.store import study_from_json, study_json

PLUGIN = "plugin_under_test"
SOURCE = textwrap.dedent('''
    """A positional encoding and a task of a plugin's own."""
    import numpy as np
    import torch

    from ablation.data import Task, TaskData, task
    from ablation.model import NoPositionalEncoding, positional_encoding


    @positional_encoding("tilt")
    class Tilt(NoPositionalEncoding):
        """Position t adds t / T to the input."""

        sees_order = True

        def forward(self, x):  # x: [B, T, D]
            return x + torch.arange(x.shape[1]).view(1, -1, 1) / x.shape[1]


    @task("first_sign")
    class FirstSign(Task):
        """Is coordinate 0 at `position` positive?"""

        settings = {"position": {"type": "integer", "minimum": 0, "default": 0, "description": "the position"},
                    "scale": {"type": "number", "default": 1.0, "description": "std of the inputs"}}
        twins = False

        def __init__(self, position, scale):
            self.position, self.scale = position, scale

        def data(self, s):
            rng = np.random.default_rng(s.effective_data_seed)
            X = rng.standard_normal((s.n_train + s.n_test, s.seq_len, s.d_model)).astype(np.float32) * self.scale
            X = torch.from_numpy(X)
            y = (X[:, self.position, 0] > 0).float()
            return TaskData(X[: s.n_train], y[: s.n_train], X[s.n_train :], y[s.n_train :])
''')
BASE = {"defaults": {"depth": 1, "d_model": 8, "heads": 2, "ff": 8, "head_hidden": 8, "n_train": 16, "n_test": 4,
                     "epochs": 2}}  # fmt: skip


@pytest.fixture(scope="module")
def plugin(tmp_path_factory):
    """The plugin on sys.path; afterwards its names leave the registries (other tests loop over them)."""
    folder = tmp_path_factory.mktemp("plugin")
    (folder / f"{PLUGIN}.py").write_text(SOURCE, encoding="utf-8")
    sys.path.insert(0, str(folder))
    yield folder / f"{PLUGIN}.py"
    sys.path.remove(str(folder))
    sys.modules.pop(PLUGIN, None)
    model.POSITIONAL_ENCODINGS.pop("tilt", None)
    data.TASKS.pop("first_sign", None)
    for key in [k for k, owner in plugins._OWNER.items() if owner == PLUGIN]:
        del plugins._OWNER[key]
    plugins._CODE.pop(PLUGIN, None)


def config(study: dict, with_plugin: bool = True) -> C.Config:
    return C.validate(BASE | {"plugins": [PLUGIN] if with_plugin else [], "studies": {"s": study | {"seeds": [0, 1]}}})


def test_only_the_runs_of_a_plugins_names_carry_its_code(plugin):
    runs = config({"factors": {"pos_enc": ["none", "sinusoidal", "tilt"]}}).studies["s"].runs()
    plain = config({"factors": {"pos_enc": ["none", "sinusoidal"]}}, with_plugin=False).studies["s"].runs()
    code = {"pos_enc": {"tilt": {"module": PLUGIN, "sha256": plugins.source_sha256(sys.modules[PLUGIN])}}}
    for run in runs:
        assert run.settings.plugin_code == (code if run.settings.pos_enc == "tilt" else {})
    # listing a plugin changes no run of built-in names
    assert {r.run_id: r.hash for r in runs if r.settings.pos_enc != "tilt"} == {r.run_id: r.hash for r in plain}
    for run in runs:  # what the train job and settings.json get is the same run
        assert from_json(run.settings.to_json()) == run.settings


def test_every_process_that_rebuilds_a_study_from_its_json_finds_the_same_runs(plugin):
    study = config({"factors": {"pos_enc": ["none", "tilt"], "task": ["order", "first_sign"]}}).studies["s"]
    again = study_from_json(study_json(study))  # the index job's study
    assert [(r.run_id, r.hash) for r in again.runs()] == [(r.run_id, r.hash) for r in study.runs()]
    assert [r.hash for r in design.potential_runs(study, 2)] == [r.hash for r in study.runs()]  # the rounds'


def test_task_settings_are_checked_filled_with_defaults_and_part_of_the_runs_identity(plugin):
    def hashes(task_settings):
        return [r.hash for r in config({"fixed": {"task": "first_sign", "task_settings": task_settings}}).studies["s"].runs()]

    assert hashes({}) == hashes({"position": 0}) == hashes({"position": 0, "scale": 1})  # 1 and 1.0: one number
    assert hashes({"position": 1}) != hashes({})
    run = config({"fixed": {"task": "first_sign"}}).studies["s"].runs()[0]
    assert run.settings.task_settings == {"position": 0, "scale": 1.0}
    with pytest.raises(C.ConfigError, match=r"^study 's': fixed.task_settings: task first_sign: position: -1 is out "
                                            r"of range: must be >= 0$"):  # fmt: skip
        config({"fixed": {"task": "first_sign", "task_settings": {"position": -1}}})


def test_an_exact_claim_on_a_task_without_twins_is_refused_in_one_line(plugin):
    claim = {"id": "chance", "statement": "blind", "kind": "at_value", "target": 0.5, "tolerance": 0.0, "exact": True}
    study = {"factors": {"pos_enc": ["none", "tilt"], "task": ["order", "first_sign"]}, "claims": [claim]}
    with pytest.raises(C.ConfigError, match=r"^study 's': claim 'chance': 'exact' needs a task with swap twins; "
                                            r"task first_sign has none$"):  # fmt: skip
        config(study)
    config(study | {"claims": [claim | {"where": {"task": "order"}}]})  # judged on the order task only: fine


def test_a_run_is_not_trained_with_a_plugin_source_other_than_its_planned_one(plugin):
    run = config({"fixed": {"pos_enc": "tilt"}}).studies["s"].runs()[0]
    plugins.ensure(run.settings)  # as planned: fine
    entry = run.settings.plugin_code["pos_enc"]["tilt"]
    stale = from_json(run.settings.to_json().replace(entry["sha256"], "0" * 64))
    with pytest.raises(plugins.PluginError, match=rf"^plugin {PLUGIN}: its source changed since this run was planned"):
        plugins.ensure(stale)
