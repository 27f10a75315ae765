"""ablation.registration: a claim's test registered before its runs, and what its row says when it changed.

The hash of a claim's test is stable over what does not test (key order, words, a default written out),
and moves with what does; a change is named key by key with the registered and the current value; an
unchanged claim says nothing; a claim added later says so; the registered claim is judged with its
family as registered. Registration follows the config until the study's first run exists, then stays.
"""

from __future__ import annotations

import copy
import hashlib
import json
import subprocess
import sys

import pandas as pd
import pytest
import yaml

from ablation import REPO_DIR, claims
from ablation import config as ablation_config
from ablation import registration
from ablation.seed_units import StudyRuns

STATS = {"confidence": 0.95, "n_resamples": 99, "converged_threshold": 0.95, "alpha": 0.05}
C2 = {"id": "C2", "statement": "With positional encoding it reaches about 100 %.", "source": "a lesson",
      "kind": "at_least", "where": {"pos_enc": "sinusoidal"}, "threshold": 0.97}  # fmt: skip
CHANCE = {"id": "chance", "statement": "Without it, chance.", "kind": "at_value", "where": {"pos_enc": "none"},
          "target": 0.5, "tolerance": 0.1}  # fmt: skip
SMOKE = ablation_config.load(REPO_DIR / "config" / "smoke.yaml")


def built(*mappings) -> list:
    return ablation_config.check_claims(list(mappings), ["pos_enc"], ["pos_enc", "test_acc"])


def entry(mapping, seeds=range(8), adaptive=None) -> dict:
    return registration.entry(built(mapping)[0], list(seeds), adaptive)


# --------------------------------------------------------------------------- the hash of a claim's test


def test_a_claims_hash_is_the_sha256_of_its_canonical_test_and_ignores_what_does_not_test():
    first = entry(C2)
    assert first["sha256"] == hashlib.sha256(registration.canonical(first["test"]).encode()).hexdigest()
    assert first["test"]["threshold"] == 0.97 and first["test"]["estimand"] == "share" and "statement" not in first["test"]
    reordered = dict(reversed(list(C2.items())))
    reworded = C2 | {"statement": "Other words.", "source": "elsewhere", "note": "a note"}
    defaults = C2 | {"estimand": "share", "share": 0.5, "cells": "every", "threshold": 0.97}
    assert {entry(m)["sha256"] for m in (reordered, reworded, defaults)} == {first["sha256"]}
    assert entry(C2 | {"threshold": 1})["sha256"] == entry(C2 | {"threshold": 1.0})["sha256"]
    # the same test in a new process: the hash does not depend on the interpreter's state
    code = ("import json, sys; from ablation import config, registration; "
            "c = config.check_claims([json.loads(sys.argv[1])], ['pos_enc'], ['pos_enc', 'test_acc'])[0]; "
            "print(registration.entry(c, list(range(8)), None)['sha256'])")  # fmt: skip
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(C2)], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == first["sha256"]


@pytest.mark.parametrize("changed", [{"threshold": 0.6}, {"estimand": "mean"}, {"where": {"pos_enc": "none"}},
                                     {"share": 0.75}, {"cells": "average"}])  # fmt: skip
def test_each_key_that_tests_moves_the_hash(changed):
    assert entry(C2 | changed)["sha256"] != entry(C2)["sha256"]


def test_the_studys_seeds_and_adaptive_block_belong_to_each_claims_test():
    assert entry(C2, seeds=range(5))["sha256"] != entry(C2)["sha256"]
    assert entry(C2, adaptive={"max_seeds": 20, "batch": 5})["sha256"] != entry(C2)["sha256"]


# --------------------------------------------------------------------------- what changed, in words


def test_changes_name_each_key_with_its_registered_and_current_value():
    old, new = entry(C2, range(5), {"max_seeds": 40, "batch": 5}), entry(C2 | {"threshold": 0.6, "estimand": "mean"},
                                                                       range(6), {"max_seeds": 20, "batch": 5})  # fmt: skip
    assert registration.changes(old, new) == ["estimand share → mean", "threshold 0.97 → 0.6", "seeds 0–4 → 0–5",
                                              "adaptive max_seeds 40 → 20"]  # fmt: skip
    assert registration.changes(old["test"], new["test"]) == registration.changes(old, new)  # a test or an entry
    assert registration.changes(entry(C2), entry(C2 | {"where": {}})) == ["where {pos_enc: sinusoidal} → unset"]


def test_a_key_newer_than_the_registration_is_read_as_what_it_meant_before():
    """A registration written before claims had a `test` key: estimand mean meant the betting e-process."""
    mean, share = entry(C2 | {"estimand": "mean"}), entry(C2)
    assert mean["test"]["test"] == "t" and "test" not in share["test"]  # the mean's test; none for a share
    old = {k: v for k, v in mean["test"].items() if k != "test"}
    assert registration.changes(old, mean) == ["test betting → t"]
    assert registration.changes(old, entry(C2 | {"estimand": "mean", "test": "betting"})) == []
    assert registration.changes(share["test"], share) == []
    assert registration.changes({k: v for k, v in share["test"].items() if k != "cells"}, share) == []  # unknown: unsaid


def test_an_unchanged_claim_says_nothing():
    assert registration.changes(entry(C2), entry(C2 | {"statement": "Reworded."})) == []


# --------------------------------------------------------------------------- the claims table's columns


def summary(acc_of, seeds=range(8)) -> pd.DataFrame:
    """One run per (pos_enc, seed): test_acc = acc_of(pos_enc, seed) on 300 test sequences."""
    rows = [dict(run_id=f"pos_enc~{p}/seed~{s}", seed=s, pos_enc=p, status="ok", test_total=300,
                 test_correct=round(300 * acc_of(p, s)), test_acc=round(300 * acc_of(p, s)) / 300, n_test=150)
            for p in ("none", "sinusoidal") for s in seeds]  # fmt: skip
    return pd.DataFrame(rows)


def judged(tmp_path, registered: list, current: list, acc_of, seeds=range(8), registered_seeds=None):
    """The claims table of a study whose claims were registered as ``registered`` and are now ``current``."""
    study_cfg = ablation_config.Study("s", "", {}, {"pos_enc": ["none", "sinusoidal"]},
                                      list(registered_seeds or seeds), built(*registered))  # fmt: skip
    path = tmp_path / "registration.json"
    path.write_text(json.dumps(registration.register(study_cfg, commit="abc", runs=16)))
    runs = [StudyRuns("s", summary(acc_of, seeds), ("pos_enc",), None, None, tuple(built(*current)))]
    spec = {"stats": STATS, "studies": {"s": {"factors": ["pos_enc"], "claims": current, "seeds": list(seeds)}}}
    table = claims.evaluate_all(runs, STATS)[0]
    out = registration.annotate(table, runs, spec, {"s": path}, claims.evaluate_all)
    return table.set_index("id"), out.set_index("id"), json.loads(path.read_text())


def at_90(pos_enc, seed):
    return 0.5 if pos_enc == "none" else 0.9


def test_a_claim_changed_after_its_runs_names_the_change_and_its_registered_verdict(tmp_path):
    before, after, reg = judged(tmp_path, [C2, CHANCE], [C2 | {"threshold": 0.6}, CHANCE], at_90)
    row = after.loc["C2"]
    assert (row["verdict"], row["verdict_registered"]) == ("SUPPORTED", "CONTRADICTED")  # 8 seeds at 90 %
    assert row["changed_after_runs"] == "threshold 0.97 → 0.6" and row["registered"] == reg["claims"][0]["sha256"]
    assert row["sentence"] == (before.loc["C2", "sentence"].rstrip(".") + "; changed after its runs: threshold 0.97 → "
                               "0.6; under the registered claim: CONTRADICTED.")  # fmt: skip
    assert row["sentence"].count(". ") == 0  # still one sentence
    same = after.loc["chance"]  # unchanged in the same family: nothing said
    assert (same["changed_after_runs"], same["verdict_registered"]) == ("", same["verdict"])
    assert same["sentence"] == before.loc["chance", "sentence"]


def test_an_unchanged_family_reads_its_own_verdicts_and_says_nothing(tmp_path):
    before, after, _ = judged(tmp_path, [C2, CHANCE], [CHANCE | {"statement": "Reworded."}, C2], at_90)
    assert (after["changed_after_runs"] == "").all() and (after["verdict_registered"] == after["verdict"]).all()
    assert after["sentence"].tolist() == before["sentence"].tolist()


def test_a_claim_added_after_the_registration_says_so(tmp_path):
    _, after, _ = judged(tmp_path, [CHANCE], [CHANCE, C2], at_90)
    row = after.loc["C2"]
    assert (row["registered"], row["changed_after_runs"], row["verdict_registered"]) == ("", "added after its runs", "")
    assert row["sentence"].endswith("; added after its runs.")
    assert after.loc["chance", "changed_after_runs"] == ""


def test_the_registered_claim_is_judged_in_its_family_as_registered(tmp_path):
    """5 seeds all at 99 %: alone, C2's p = 1/32 decides it; beside an open claim (Holm over two:
    alpha / 2 first) it does not. Its registered family held both, so it reads INCONCLUSIVE there."""
    open_claim = CHANCE | {"id": "open"}

    def acc(pos_enc, seed):
        return (0.5 if seed < 3 else 0.9) if pos_enc == "none" else 0.99

    _, after, _ = judged(tmp_path, [C2, open_claim], [C2 | {"threshold": 0.95}], acc, seeds=range(5))
    row = after.loc["C2"]
    assert (row["verdict"], row["verdict_registered"]) == ("SUPPORTED", "INCONCLUSIVE")


def test_a_registered_exact_claim_whose_arm_the_design_dropped_is_left_out_and_the_rest_is_judged(tmp_path):
    """The design drops pos_enc=none, and the exact claim on it: the registered family still judges C2
    (the exact claim has no family to weigh in, and no run to check), and its row reads the verdict."""
    exact = CHANCE | {"id": "exact", "tolerance": 0.0034, "exact": True}
    study_cfg = ablation_config.Study("s", "", {}, {"pos_enc": ["none", "sinusoidal"]}, list(range(8)), built(C2, exact))
    path = tmp_path / "registration.json"
    path.write_text(json.dumps(registration.register(study_cfg, commit="abc", runs=16)))
    kept = summary(at_90).query("pos_enc == 'sinusoidal'").reset_index(drop=True)
    current = [C2 | {"threshold": 0.6}]
    runs = [StudyRuns("s", kept, ("pos_enc",), None, None, tuple(built(*current)))]
    spec = {"stats": STATS, "studies": {"s": {"factors": ["pos_enc"], "claims": current, "seeds": list(range(8))}}}
    out = registration.annotate(claims.evaluate_all(runs, STATS)[0], runs, spec, {"s": path}, claims.evaluate_all)
    row = out.set_index("id").loc["C2"]
    assert (row["verdict"], row["verdict_registered"]) == ("SUPPORTED", "CONTRADICTED")
    assert "cannot be judged" not in row["sentence"]


def test_a_fixed_registered_design_is_judged_on_its_registered_seeds(tmp_path):
    def acc(pos_enc, seed):  # seeds 5-7, added after the registration, miss the threshold
        return 0.5 if pos_enc == "none" else (0.99 if seed < 5 else 0.9)

    _, after, _ = judged(tmp_path, [C2], [C2], acc, registered_seeds=range(5))
    row = after.loc["C2"]
    assert row["changed_after_runs"] == "seeds 0–4 → 0–7"
    assert (row["verdict"], row["verdict_registered"]) == ("INCONCLUSIVE", "SUPPORTED")


# --------------------------------------------------------------------------- when it is written


def complete(store, run_hash):
    (store / run_hash).mkdir(parents=True)
    (store / run_hash / "metrics.csv").write_text("test_acc\n1\n")


def test_a_registration_follows_the_config_until_the_first_run_then_stays(tmp_path):
    results, store = tmp_path / "results", tmp_path / "runs"
    path = results / "lesson" / registration.FILE
    assert registration.write(SMOKE, results, ["lesson"], store=store) == [path]
    first = registration.load(path)
    assert (first["when"], first["runs_existed"], first["runs"]) == (registration.BEFORE, 0, 4)
    assert registration.write(SMOKE, results, ["lesson"], store=store) == []  # the same claims: the file stays
    raw = copy.deepcopy(SMOKE.raw)
    raw["studies"]["lesson"]["claims"][1]["threshold"] = 0.6
    edited = ablation_config.validate(raw)
    assert registration.write(edited, results, ["lesson"], store=store) == [path]  # no run yet: it follows
    assert registration.load(path)["claims"][1]["test"]["threshold"] == 0.6
    complete(store, edited.studies["lesson"].runs()[0].hash)
    assert registration.write(SMOKE, results, ["lesson"], store=store) == []  # a run exists: it stays
    assert registration.load(path)["claims"][1]["test"]["threshold"] == 0.6
    assert registration.write(SMOKE, results, ["lesson"], store=store, force=True) == [path]  # make register
    again = registration.load(path)
    assert (again["when"], again["runs_existed"], again["claims"][1]["test"]["threshold"]) == (registration.AFTER, 1, 0.97)


def test_a_study_with_runs_and_no_registration_takes_the_references_registration_of_those_runs(tmp_path):
    results, store, reference = tmp_path / "results", tmp_path / "runs", tmp_path / "reference"
    lesson = SMOKE.studies["lesson"]
    old = registration.register(lesson, commit="0123abc", when=registration.HISTORY, runs_existed=None)
    (reference / "lesson").mkdir(parents=True)
    (reference / "lesson" / registration.FILE).write_text(json.dumps(old))
    (reference / "lesson" / "summary.csv").write_text("run_id,hash\n" + "".join(f"{r.run_id},{r.hash}\n" for r in lesson.runs()))
    registration.write(SMOKE, results, ["lesson"], store=store, reference=reference)  # no run here: its own
    assert registration.load(results / "lesson" / registration.FILE)["when"] == registration.BEFORE
    (results / "lesson" / registration.FILE).unlink()
    complete(store, lesson.runs()[0].hash)
    registration.write(SMOKE, results, ["lesson"], store=store, reference=reference)
    taken = registration.load(results / "lesson" / registration.FILE)
    assert taken["commit"] == "0123abc" and taken["adopted_from"].endswith("reference/lesson/registration.json")
    (results / "lesson" / registration.FILE).unlink()
    (reference / "lesson" / "summary.csv").write_text("run_id,hash\nx,0000\n")  # the reference's runs are others
    registration.write(SMOKE, results, ["lesson"], store=store, reference=reference)
    mine = registration.load(results / "lesson" / registration.FILE)
    assert (mine["when"], mine["runs_existed"]) == (registration.AFTER, 1)


# --------------------------------------------------------------------------- from git history


def needs_history(commit: str):
    if subprocess.run(["git", "-C", str(REPO_DIR), "cat-file", "-e", f"{commit}^{{commit}}"]).returncode:
        pytest.skip(f"this checkout has no commit {commit} (a shallow clone)")


def test_from_commit_reads_the_claims_as_committed_then():
    needs_history("c8bf624")
    before, after = registration.from_commit("c8bf624^")["factorial"], registration.from_commit("c8bf624")["factorial"]
    c3 = [next(e for e in reg["claims"] if e["id"] == "C3-heads") for reg in (before, after)]
    assert registration.changes(*c3) == ["estimand share → mean"]
    assert before["when"] == registration.HISTORY and before["commit"].startswith("160dce2")
    text = subprocess.run(["git", "-C", str(REPO_DIR), "show", "c8bf624^:config/config.yaml"], capture_output=True,
                          text=True, check=True).stdout  # fmt: skip
    c3_raw = next(c for c in yaml.safe_load(text)["studies"]["factorial"]["claims"] if c["id"] == "C3-heads")
    assert c3[0]["claim"] == c3_raw


def test_the_committed_reference_registers_the_claims_its_runs_were_first_judged_with():
    needs_history("a99e6db")
    for name in ("factorial", "position"):
        path = REPO_DIR / "reference" / name / registration.FILE
        if not path.is_file():
            pytest.skip(f"{path} is not written yet (python -m ablation.registration history)")
        committed = registration.load(path)
        derived = registration.from_commit(registration.first_reference_commit(name))[name]
        assert committed["commit"] == derived["commit"]  # a field newer than the file is no change
        assert [(e["id"], registration.changes(e, d)) for e, d in zip(committed["claims"], derived["claims"])] == [
            (e["id"], []) for e in derived["claims"]]  # fmt: skip
        estimands = {e["id"]: e["test"]["estimand"] for e in committed["claims"]}
        assert {estimands[c] for c in ("C3-heads", "C4-seq-len", "P3-rope-not-worse-at-32",
                                       "P4-learned-like-sinusoidal") if c in estimands} == {"share"}  # fmt: skip


def test_the_history_names_the_commit_of_each_estimand_change_and_the_references_verdicts_around_it():
    needs_history("c8bf624")
    found = registration.events("factorial", registration.first_reference_commit("factorial"))
    c3 = next(ev for ev in found if ev["claim"] == "C3-heads" and "estimand share → mean" in ev["words"])
    assert c3["commit"].startswith("c8bf624") and c3["before"][0] == "SUPPORTED" and c3["after"][0] == "INCONCLUSIVE"
    assert any(ev["claim"] is None and "seeds 0–4 → 0–6" in ev["words"] for ev in found)  # the study's design


def test_registration_md_says_which_estimands_changed_then_and_which_change_again_this_round():
    regs = {"s": {"commit": "a" * 40, "registered_at": "2026-12-01T00:00:00+00:00"}}
    found = [{"study": "s", "claim": "C3", "words": ["estimand share → mean"], "commit": "c" * 40, "date": "2026-12-04",
              "before": ("SUPPORTED", "bbbbbbb"), "after": ("INCONCLUSIVE", "ddddddd")},
             {"study": "s", "claim": "C3", "words": ["test betting → t"], "commit": None, "date": "working tree"},
             {"study": "s", "claim": "C4", "words": ["estimand mean → share"], "commit": None, "date": "working tree"}]  # fmt: skip
    text = registration.markdown(regs, found)
    assert ("Estimands and their tests changed after the reference's runs existed, in git history: `C3` (estimand share → mean, "
            "`ccccccc` (2026-12-04)). The reference's verdict changed with 1 of them: `C3` SUPPORTED → INCONCLUSIVE.") in text
    assert "again in the working tree (this round, not yet committed): `C3` (test betting → t); `C4` (estimand mean → share)." in text
    assert "| s | `C3` | test betting → t | the working tree (this round) | none | not judged yet |" in text


def test_a_change_the_reference_has_not_judged_since_is_not_counted_as_a_turned_verdict():
    regs = {"s": {"commit": "a" * 40, "registered_at": "2026-12-01T00:00:00+00:00"}}
    found = [{"study": "s", "claim": "C3", "words": ["test betting → t"], "commit": "c" * 40, "date": "2026-12-06",
              "before": ("INCONCLUSIVE", "bbbbbbb"), "after": ("", "")},
             {"study": "s", "claim": "C4", "words": ["estimand share → mean"], "commit": "e" * 40, "date": "2026-12-04",
              "before": ("SUPPORTED", "bbbbbbb"), "after": ("INCONCLUSIVE", "ddddddd")}]  # fmt: skip
    text = registration.markdown(regs, found)
    assert "The reference's verdict changed with 1 of them: `C4` SUPPORTED → INCONCLUSIVE." in text
    assert "| s | `C3` | test betting → t | `ccccccc` (2026-12-06) | INCONCLUSIVE (bbbbbbb) | none |" in text
