"""The small measuring scripts beside the harness: the tools compare.py, gpu_check.py and same_numbers.py,
the probes profile_step.py, batched_probe.py and attention_kernels.py, and the mutation harness's test order
and out-of-date rows."""

import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

REPO = Path(__file__).resolve().parents[2]
BENCH = REPO / "benchmarks"


def _bench_script(name: str):
    """benchmarks/<name>.py imported as a module (benchmarks/ is not a package); name may hold a
    folder (probes/batched_probe)."""
    spec = importlib.util.spec_from_file_location(Path(name).name, BENCH / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _mutation(part: str):
    """benchmarks/mutation_harness/<part>.py, imported as a module of its package without putting
    benchmarks/ on sys.path."""
    if "mutation_harness" not in sys.modules:
        folder = BENCH / "mutation_harness"
        spec = importlib.util.spec_from_file_location("mutation_harness", folder / "__init__.py",
                                                      submodule_search_locations=[str(folder)])  # fmt: skip
        sys.modules["mutation_harness"] = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(sys.modules["mutation_harness"])
    return importlib.import_module(f"mutation_harness.{part}")


def test_compare_against_head_trains_every_cell_and_finds_them_identical(tmp_path):
    # this checkout against its own last commit: the training code is the same unless uncommitted
    # changes alter it, so every cell must end on the same bytes
    out = tmp_path / "compare.json"
    cmd = [sys.executable, str(BENCH / "compare.py"), "--base", "HEAD", "--study", "lesson", "--epochs", "2",
           "--rounds", "1", "--out", str(out)]  # fmt: skip
    proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:] + proc.stdout[-2000:]
    result = json.loads(out.read_text())
    summary, rows = result["summary"], result["rows"]
    assert summary["all_identical"] and all(row["identical"] for row in rows)
    assert summary["cells"] == len(rows) > 1
    assert len({json.dumps(row["cell"], sort_keys=True) for row in rows}) == len(rows)  # one row per cell
    assert all(row["base_s"] > 0 and row["new_s"] > 0 for row in rows)
    assert len(summary["loadavg"]) == 2  # one worker per version


def test_profile_step_writes_a_breakdown_per_setting(tmp_path):
    out = tmp_path / "profile.md"
    cmd = [sys.executable, str(BENCH / "probes" / "profile_step.py"), "--seq-lens", "8", "--heads", "1", "2", "--epochs", "2",
           "--top", "3", "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True, timeout=600)
    rows = json.loads(out.with_suffix(".json").read_text())["rows"]
    assert [(r["seq_len"], r["heads"]) for r in rows] == [(8, 1), (8, 2)]
    for r in rows:
        assert sum(r["shares"].values()) == pytest.approx(1.0)
        assert r["shares"]["attention kernel"] > 0 and len(r["top"]) == 3
    assert out.read_text().count("top ops by self CPU time") == 2
    assert "at most" in out.read_text()


def test_profile_bound_weights_each_setting_by_its_step_time():
    module = _bench_script("probes/profile_step")
    attention, products = module.KINDS[:2]
    rows = [{"step_us": 100.0, "shares": {attention: 0.5, products: 0.1}},
            {"step_us": 300.0, "shares": {attention: 0.25, products: 0.2}}]  # fmt: skip
    share, bound = module.kept_bound(rows)  # (50 + 75) / 400 of the time is attention
    assert share == pytest.approx(125 / 400) and bound == pytest.approx(400 / 125)
    share, bound = module.kept_bound(rows, (attention, products))  # (60 + 135) / 400
    assert share == pytest.approx(195 / 400) and bound == pytest.approx(400 / 195)


def test_gpu_check_without_cuda_is_a_one_line_error():
    if torch.cuda.is_available():
        pytest.skip("CUDA is available here")
    proc = subprocess.run([sys.executable, str(BENCH / "gpu_check.py")], cwd=REPO, capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 1
    assert proc.stderr.count("\n") == 1 and "CUDA is not available" in proc.stderr


def test_batched_probe_computes_what_each_member_model_computes():
    # the probe's speed numbers mean something only if its stacked layout is the same network
    probe = _bench_script("probes/batched_probe")
    settings = [probe.member_settings(seq_len=8, heads=2, seed=seed) for seed in range(3)]
    datas = [probe.make_order_data(s) for s in settings]
    models = []
    for s in settings:
        torch.manual_seed(s.seed)
        models.append(probe.build_model(s))
    P = probe.stack_members(models)
    X = torch.stack([d.X_train for d in datas])
    pe = probe.sinusoidal_encoding(8, settings[0].d_model)
    batched = probe.batched_forward(P, X, pe, heads=2, depth=settings[0].depth)  # [S, B]
    for member, (model, data) in enumerate(zip(models, datas)):
        torch.testing.assert_close(batched[member], model(data.X_train), rtol=1e-5, atol=1e-5)


def test_batched_probe_writes_one_row_per_cell(tmp_path):
    out = tmp_path / "probe.md"
    cmd = [sys.executable, str(BENCH / "probes" / "batched_probe.py"), "--members", "2", "--epochs", "1", "--repeats", "1",
           "--seq-lens", "8", "--heads", "1", "2", "--out", str(out)]  # fmt: skip
    subprocess.run(cmd, cwd=REPO, check=True, capture_output=True, text=True, timeout=600)
    rows = [line for line in out.read_text().splitlines() if line.startswith("| 8 |")]
    assert [row.split("|")[2].strip() for row in rows] == ["1", "2"]


def test_attention_kernels_compute_the_same_attention():
    # the timings compare formulations of one function: each must give SDPA's values and gradients
    module = _bench_script("probes/attention_kernels")
    for heads in (1, 4):
        reference = None
        for kernel in module.KERNELS.values():
            qkv = module.inputs(batch=6, heads=heads, seq_len=5, d_model=8)
            out = kernel(*qkv)
            (out * torch.arange(out.numel()).view_as(out)).sum().backward()  # a gradient unequal per element
            result = [out.detach(), *(t.grad for t in qkv)]
            if reference is None:
                reference = result
            for got, want in zip(result, reference):
                torch.testing.assert_close(got, want, rtol=1e-4, atol=1e-4)


def test_mutation_runs_a_mutants_tests_fastest_first_and_unrecorded_ones_last(tmp_path):
    # mutmut stops at a mutant's first failing test (-x): the harness's conftest orders the tests by the
    # durations mutmut recorded, so the cheapest kill comes first; the order is all it changes
    module = _mutation("runs")
    (tmp_path / "conftest.py").write_text(module.ORDER_HOOK)
    (tmp_path / "test_some.py").write_text("".join(f"def test_{n}():\n    pass\n\n\n" for n in "abcd"))
    collect = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", "test_some.py"]

    def order():
        out = subprocess.run(collect, cwd=tmp_path, capture_output=True, text=True, timeout=120).stdout
        return [ln.split("::")[1] for ln in out.splitlines() if "::" in ln]

    assert order() == ["test_a", "test_b", "test_c", "test_d"]  # nothing recorded yet: as written
    durations = {"test_some.py::test_a": 3.0, "test_some.py::test_b": 0.5, "test_some.py::test_d": 1.0}
    (tmp_path / "mutmut-stats.json").write_text(json.dumps({"duration_by_test": durations}))
    assert order() == ["test_b", "test_d", "test_a", "test_c"]


def test_mutation_freezes_what_the_fork_servers_warm_up_imported_and_nothing_else(tmp_path):
    # mutmut's fork server warms up with pytest --collect-only, then forks one child per mutant: the
    # harness's conftest freezes the heap there (gc.freeze) and in no other pytest session
    module = _mutation("runs")
    (tmp_path / "conftest.py").write_text(module.ORDER_HOOK)
    (tmp_path / "test_some.py").write_text("def test_a():\n    pass\n")
    probe = ("import gc, sys, pytest\n"
             "pytest.main([*sys.argv[1:], '-q', '-p', 'no:cacheprovider', 'test_some.py'])\n"
             "print('frozen', gc.get_freeze_count())\n")  # fmt: skip

    def frozen(*args):
        out = subprocess.run([sys.executable, "-c", probe, *args], cwd=tmp_path, capture_output=True, text=True,
                             timeout=120, check=True).stdout  # fmt: skip
        return int(out.split("frozen ")[-1])

    assert frozen("--collect-only") > 1000  # the warm-up: pytest and what it imported
    assert frozen() == 0  # a test run (the mutant's, in the forked child) freezes nothing


def test_a_real_mutmut_run_of_a_toy_module_is_read_as_mutmut_reports_it(tmp_path):
    # the harness end to end on a one-function module: mutmut run, then collect() reads every status and
    # each survivor's diff (one process for all of them) as `mutmut results` and `mutmut show` print them
    module = _mutation("runs")
    (tmp_path / "src" / "ablation").mkdir(parents=True)
    (tmp_path / "src" / "ablation" / "__init__.py").write_text("")
    (tmp_path / "src" / "ablation" / "toy.py").write_text("def half_up(x):\n    if x > 10:\n        return x // 2 + 1\n    return x\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_toy.py").write_text("from ablation.toy import half_up\n\n\ndef test_small():\n    assert half_up(10) == 10\n\n\n"
                                                    "def test_big():\n    assert half_up(20) > 3\n")  # fmt: skip
    for sub in ("config", "workflow", "benchmarks"):
        (tmp_path / sub).mkdir()
    (tmp_path / "environment.yml").write_text("")
    (tmp_path / "conftest.py").write_text(module.ORDER_HOOK)
    module.write_setup(tmp_path, "toy", {"tests": ["tests/test_toy.py"]})
    env = module.mutmut_env()
    row = module.collect(tmp_path, env, module.mutmut_run(tmp_path, env, 2), 1.0)

    c = row["counts"]
    assert c["killed"] >= 1 and c["survived"] >= 3 and row["total"] == sum(c.values()), row  # x >= 10 killed; x > 11, x / 2 survive
    assert set(row["survivors"]) == {ln.split(":")[0].strip() for ln in subprocess.run(
        [str(module.MUTMUT), "results"], cwd=tmp_path, env=env, capture_output=True, text=True, check=True).stdout.splitlines()
        if ln.endswith(": survived")}  # fmt: skip
    for mutant, diff in row["survivors"].items():
        shown = subprocess.run([str(module.MUTMUT), "show", mutant], cwd=tmp_path, env=env, capture_output=True, text=True,
                               check=True).stdout  # fmt: skip
        changed = [ln.strip() for ln in shown.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        assert diff == " / ".join(changed) and diff.startswith("-"), (mutant, diff, shown)


def test_mutation_reads_every_form_of_package_import(tmp_path):
    module = _mutation("modules")
    a, b, c, d, e, f = sorted(p.stem for p in module.PACKAGE.glob("*.py") if p.stem != "__init__")[:6]
    source = tmp_path / "some.py"
    source.write_text(f"from . import {a}\nfrom .{b} import x\nfrom ablation import {c} as C\n"
                      f"from ablation.{d} import y\nimport ablation.{e}\nimport {f}\nfrom . import no_such_module\n")  # fmt: skip
    assert module.package_imports(source) == {f"{n}.py" for n in (a, b, c, d, e)}  # not a bare `import f`


def test_every_mutation_row_depends_on_its_module_tests_and_what_they_import():
    module = _mutation("modules")
    for name, spec in module.MODULES.items():
        files = module.watched(name)
        assert {f"scripts/ablation/{name}.py", *spec["tests"]} <= set(files)
        for path in files:  # closed under import: nothing a watched file imports is missing
            if path.endswith(".py"):
                assert {f"scripts/ablation/{n}" for n in module.package_imports(module.REPO / path)} <= set(files)


def test_a_mutation_row_is_out_of_date_once_a_file_it_depends_on_changes(tmp_path, monkeypatch):
    # a throwaway repository: module "alpha" imports "beta"; "gamma" is imported by neither
    module = _mutation("modules")
    package, tests = tmp_path / "scripts" / "ablation", tmp_path / "tests"
    package.mkdir(parents=True)
    tests.mkdir()
    (package / "alpha.py").write_text("from . import beta\n")
    (package / "beta.py").write_text("X = 1\n")
    (package / "gamma.py").write_text("Y = 1\n")
    (tests / "test_alpha.py").write_text("from ablation import alpha\n")
    monkeypatch.setattr(module, "REPO", tmp_path)
    monkeypatch.setattr(module, "PACKAGE", package)
    monkeypatch.setattr(module, "MODULES", {"alpha": {"tests": ["tests/test_alpha.py"]}})
    for args in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "x"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True, capture_output=True)
    head = module.git("rev-parse", "--short", "HEAD")
    data = {"modules": {"alpha": {"commit": head}}}
    everything = ["scripts/ablation/alpha.py", "scripts/ablation/beta.py", "tests/test_alpha.py"]
    assert module.watched("alpha") == everything
    assert module.out_of_date(data) == {}
    (package / "gamma.py").write_text("Y = 2\n")  # nothing alpha depends on
    assert module.out_of_date(data) == {}
    (package / "beta.py").write_text("X = 2\n")
    assert module.out_of_date(data) == {"alpha": ["scripts/ablation/beta.py"]}
    (tests / "test_alpha.py").write_text("from ablation import alpha, gamma\n")  # now it depends on gamma too
    assert module.out_of_date(data) == {"alpha": ["scripts/ablation/beta.py", "scripts/ablation/gamma.py",
                                                  "tests/test_alpha.py"]}  # fmt: skip
    now = sorted(everything + ["scripts/ablation/gamma.py"])
    for commit in (head + "-dirty", "0" * 40):  # measured with uncommitted changes; a commit not here
        assert module.out_of_date({"modules": {"alpha": {"commit": commit}}}) == {"alpha": now}
    assert module.out_of_date({"modules": {}}) == {"alpha": now}  # not measured


def test_a_mutmut_run_keeps_its_output_and_the_load_meanwhile(tmp_path, monkeypatch):
    module = _mutation("runs")
    fake = tmp_path / "mutmut"  # stands in for mutmut: prints its arguments, runs a while, fails
    fake.write_text("#!/bin/sh\necho \"$@\"\nsleep 1\necho done >&2\nexit 3\n")
    fake.chmod(0o755)
    monkeypatch.setattr(module, "MUTMUT", fake)
    monkeypatch.setattr(module, "LOAD_EVERY", 0.2)
    (tmp_path / "run.log").write_text("before\n")
    proc = module.mutmut_run(tmp_path, dict(os.environ), 2, ["m1", "m2"])
    assert proc.returncode == 3
    assert (tmp_path / "run.log").read_text() == proc.stdout == "before\nrun --max-children 2 m1 m2\ndone\n"
    assert len(proc.loads) >= 3 and all(x >= 0 for x in proc.loads)  # about 1 s at one sample per 0.2 s
    load = module._load(proc.loads)
    assert load["samples"] == len(proc.loads) and load["max"] >= load["mean"] >= 0


def test_same_numbers_compares_bit_for_bit():
    import numpy as np
    import pandas as pd

    same = _bench_script("same_numbers").same
    x = np.array([0.1, np.nan, -0.0])
    assert same((x, x.copy(), np.array(["a"], dtype=object)), (x.copy(), x, np.array(["a"], dtype=object)))
    assert not same(x, np.nextafter(x, 1))  # the last bit of each
    assert not same(np.array([0.0]), np.array([-0.0]))  # equal as numbers, not as bits
    assert not same(np.array([1.0]), np.array([1]))  # the dtype too
    assert not same(np.array(["a"], dtype=object), np.array(["b"], dtype=object))
    frame = pd.DataFrame({"p": [0.5, np.nan], "v": ["SUPPORTED", "INCONCLUSIVE"]})
    assert same(frame, frame.copy())
    assert not same(frame, frame.assign(p=[0.5, 0.25]))
    assert not same(frame, frame.astype({"p": "float32"}))
    assert not same((1.0, 2.0), (1.0,))


def test_same_numbers_tells_a_changed_number_from_none(tmp_path):
    # one test file run in both trees: a mean interval whose input moves by 1e-12 in the working tree only
    probe = tmp_path / "test_probe.py"
    cmd = [sys.executable, str(BENCH / "same_numbers.py"), "HEAD", str(probe)]
    # (mean_ci calls mean_cis, which calls skew_t_ci: both are watched)
    for shift, rc, last in (("0.0", 0, "same numbers"), ("1e-12", 1, "2 calls differ")):
        probe.write_text("from pathlib import Path\n\nfrom ablation import intervals\n\n\n"
                         "def test_probe():\n"
                         f"    shift = {shift} if Path.cwd() == Path({str(REPO)!r}) else 0.0\n"
                         "    intervals.mean_ci([0.5, 0.75 + shift, 0.8])\n")  # fmt: skip
        done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=300)
        assert done.returncode == rc, done.stdout + done.stderr
        assert done.stdout.splitlines()[-1] == last
        differ = int(shift != "0.0")
        assert f"intervals.mean_cis: 1 calls compared, 1 at HEAD and 1 now; {differ} differ" in done.stdout
        assert f"intervals.skew_t_ci: 1 calls compared, 1 at HEAD and 1 now; {differ} differ" in done.stdout


def test_the_bets_probe_keeps_alpha_and_ranks_every_truncation():
    probe = _bench_script("probes/bets")
    speed, errors = probe.bets(n_sims=500, max_seeds=20)
    assert {row["rule"] for row in speed} >= {"c = 0.5", "c = 0.9", "beta(1,1)"}
    for row in errors:
        assert row["wrong_up"] <= row["limit"] and row["wrong_down"] <= row["limit"], row
    unanimous = {r["rule"]: r["mean_seeds"] for r in speed
                 if r["scenario"] == "outcomes: every seed meets" and r["level"] == 0.025}  # fmt: skip
    assert unanimous["c = 0.9"] == 6 and unanimous["c = 0.5"] == 10 and unanimous["beta(1,1)"] == 8


def test_the_bets_probes_mixture_capital_is_the_beta_mixture_of_likelihood_ratios():
    """K+ after k of n outcomes 1 is the likelihood ratio of Bernoulli(q) to Bernoulli(m) averaged
    over q uniform on (m, 1] (K-: on [0, m)), integrated numerically; p = 1 / running max."""
    import numpy as np
    from scipy import integrate

    probe = _bench_script("probes/bets")

    z = np.array([1, 1, 0, 1, 1, 1, 0, 1, 1, 1], dtype=float)
    for m in (0.3, 0.5, 0.8):
        up, down = probe.mixture_log_capital(z, m)
        want_up, want_down, best_up, best_down = [], [], 0.0, 0.0
        for n in range(1, len(z) + 1):
            k = z[:n].sum()
            ratio = lambda q: q**k * (1 - q) ** (n - k) / (m**k * (1 - m) ** (n - k))  # noqa: E731
            best_up = max(best_up, np.log(integrate.quad(ratio, m, 1)[0] / (1 - m)))
            best_down = max(best_down, np.log(integrate.quad(ratio, 0, m)[0] / m))
            want_up.append(best_up)
            want_down.append(best_down)
        np.testing.assert_allclose(up, want_up, rtol=1e-8, atol=1e-12)
        np.testing.assert_allclose(down, want_down, rtol=1e-8, atol=1e-12)
    p_up, _ = probe.mixture_p(np.ones(7), 0.5)
    assert p_up[-1] == pytest.approx(8 / (2**8 - 1))  # every outcome 1: K+ = (2^(n+1) - 1) / (n + 1)
    with pytest.raises(ValueError, match="0/1"):
        probe.mixture_p([0.5, 1.0], 0.5)
