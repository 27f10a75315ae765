"""A representative handful of bad configs through a real ``snakemake --cores 1`` in a temp copy of
the project: exit 1, one line naming the problem, an empty results/ folder, nothing executed.
(tests/unit/test_config_validation.py checks every case at the Python level, and says which files
Snakemake's own loader refuses before our code runs.)"""

import concurrent.futures

from conftest import copy_project, snakemake
from unit.test_config_validation import _yaml, claim, rename_study, study

TOKENS = {"arch": "decoder", "attn_mask": "causal", "task": "repeat_copy", "heads": 2, "depth": 1, "seq_len": 4}

# (id, config file text or None for a missing file, a line of stderr must contain all of these);
# the unknown-key typo is run through Snakemake by test_workflow.py
SNAKEMAKE_CASES = [
    ("heads", _yaml(lambda c: study(c)["fixed"].update(heads=3)),
     ["config error: study 's1': fixed.heads: heads=3 does not divide d_model=8"]),
    ("study-name", _yaml(rename_study("../x")), ["config error: studies: study name '../x' is not a safe folder name"]),
    # what a study cannot build or evaluate (tests/unit/test_length.py has every case)
    ("eval-length", _yaml(lambda c: study(c).update(eval_lengths=[1, 16])),
     ["config error: study 's1': eval_lengths: 1 is out of range for task order: must be >= 2"]),
    ("learned-table", _yaml(lambda c: study(c).update(fixed=TOKENS | {"positions": 9}, eval_lengths={"from": 1, "to": 8})),
     ["config error: study 's1': fixed.positions: 9 is fewer than the 17 positions a sequence of length 8 occupies"]),
    ("decoder-mask", _yaml(lambda c: study(c).update(fixed=TOKENS | {"attn_mask": "bidirectional"})),
     ["config error: study 's1': fixed.attn_mask: arch decoder runs under the causal mask only; got 'bidirectional'"]),
    # a claim's scope (tests/unit/test_scope.py has every case)
    ("robust-over-factor", _yaml(claim(kind="at_least", threshold=0.5, robust_over={"norm": ["post", "pre"]})),
     ["config error: study 's1': claim 'c': robust_over.norm: norm is a factor of the study"]),
    ("robust-over-exact", _yaml(claim(kind="at_value", target=0.5, tolerance=0.01, exact=True,
                                      robust_over={"lr": [0.01, 0.1]})),
     ["config error: study 's1': claim 'c': robust_over: an exact claim holds by construction"]),
    ("python-name", _yaml(lambda c: None) + "verify: !!python/name:os.system\n",
     ["config error: verify:", "not plain data"]),
    # refused by Snakemake's own loader before the Snakefile runs (its messages, quoted in the docstring)
    ("unsafe-tag", "studies: !!python/object/apply:os.system ['touch {sentinel}']\n",
     ["Config file is not valid JSON or YAML"]),
    ("not-mapping", "- s1\n- s2\n", ["Config file must be given as JSON or YAML with keys at top level"]),
    ("missing", None, ["No such file or directory", "config/bad.yaml"]),
]  # fmt: skip


def _run_bad_config(tmp_path, case):
    name, text, fragments = case
    work = copy_project(tmp_path / name)
    sentinel = tmp_path / f"{name}.executed"
    if text is not None:
        (work / "config" / "bad.yaml").write_text(text.replace("{sentinel}", str(sentinel)))
    proc = snakemake(work, "--cores", "1", "--configfile", "config/bad.yaml", check=False, timeout=300)
    return work, sentinel, proc


def test_bad_configs_stop_snakemake_before_any_job(tmp_path):
    """Each case in a real Snakemake (run concurrently): exit 1, a line naming the problem, empty results/."""
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        results = list(pool.map(lambda case: _run_bad_config(tmp_path, case), SNAKEMAKE_CASES))
    for (name, _, fragments), (work, sentinel, proc) in zip(SNAKEMAKE_CASES, results):
        out = proc.stdout + proc.stderr
        assert proc.returncode == 1, (name, out)
        assert any(all(f in line for f in fragments) for line in out.splitlines()), (name, out)
        errors = [line for line in out.splitlines() if line.startswith("config error:")]
        if fragments[0].startswith("config error:"):
            assert len(errors) == 1, (name, out)  # our message: exactly one line
        assert not any((work / "results").iterdir()), (name, list((work / "results").rglob("*")))
        assert not sentinel.exists(), f"{name}: an unsafe tag was executed"
        assert "Job stats" not in out and "rule train" not in out, (name, out)
