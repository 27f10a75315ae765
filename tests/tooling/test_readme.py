"""The README's front door is generated: its findings are the claims the config chooses, measured again
from reference/ with the verdicts' own intervals; its table every other claim in words; its runs table
the plan's count beside what reference/ keeps and the full reproduction trained and timed; `make readme`
writes them all. A planted disagreement (a verdict, a claim, a finding's effect, a run count, a study's
time) fails the check, and so does a hand edit of a block."""

import json
import re
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import yaml
from scipy import stats as scipy_stats

from ablation import config, findings, intervals, readme, selection
from conftest import REPO

CFG = config.load(REPO / "config" / "config.yaml")
README = (REPO / "README.md").read_text(encoding="utf-8")
CLAIMS = pd.concat([pd.read_csv(p, dtype=str, keep_default_na=False) for p in sorted((REPO / "reference").glob("*/claims.csv"))])


@pytest.fixture
def reference(tmp_path):
    """A copy of reference/ to plant disagreements in."""
    return shutil.copytree(REPO / "reference", tmp_path / "reference")


@pytest.fixture
def root(tmp_path):
    """A folder with a copy of the measured full reproduction, to plant disagreements in."""
    (tmp_path / "root" / "benchmarks").mkdir(parents=True)
    shutil.copy(REPO / f"{readme.FULL}.json", tmp_path / "root" / f"{readme.FULL}.json")
    return tmp_path / "root"


def rows_of(block: str) -> list[str]:
    return [line for line in block.splitlines() if line.startswith("| ") and "`" in line]


def test_the_readme_blocks_are_those_of_reference_the_plan_and_the_reproduction():
    assert readme.differences(README, CFG, REPO / "reference") == []


def test_reference_and_the_full_reproduction_count_the_same_runs_or_the_runs_table_says_the_time_is_out_of_date():
    """Each study's runs in reference/ (its summary and its scope's) are the runs benchmarks/reproduce.md
    counts, and the runs table shows that number; a study re-run alone since (`make reference STUDY=`)
    shows its own count, and its reproduction time is marked out of date with the runs that time is of."""
    counted, machine = readme.reproduced()
    commit = machine["commit"]
    stale = readme.out_of_step(CFG, REPO / "reference")
    assert len(readme.agreement(CFG, REPO / "reference")) == len(stale)
    table = readme.block(README, "runs")
    for name in CFG.studies:
        [row] = [r for r in table.splitlines() if r.startswith(f"| `{name}` |")]
        kept = readme.kept(REPO / "reference", name)
        assert row.split(" | ")[4] == str(kept), row
        if name in stale:
            assert f"out of date: benchmarks/reproduce.md, measured at {commit}, timed {counted[name][0]} runs of an earlier " \
                   "design" in row, row
        else:
            assert counted[name][0] == kept and "out of date" not in row, row
    [total] = [r for r in table.splitlines() if r.startswith("| all |")]
    assert ("out of date" in total) == bool(stale), total  # the total adds the stale studies' times too


def test_a_study_re_run_alone_marks_its_reproduction_time_out_of_date(root):
    """A planted run count in the reproduction: the runs table marks that study's time out of date."""
    data = json.loads((root / f"{readme.FULL}.json").read_text())
    data["studies"]["lesson"]["runs"] += 1
    (root / f"{readme.FULL}.json").write_text(json.dumps(data))
    [row] = [r for r in readme.runs(CFG, REPO / "reference", root).splitlines() if r.startswith("| `lesson` |")]
    assert "out of date: benchmarks/reproduce.md, measured at " in row, row


def test_the_claims_table_has_a_row_per_claim_but_the_checks_with_its_verdict_and_scope():
    rows = rows_of(readme.block(README, "findings"))
    exact = CLAIMS[CLAIMS["estimand"] == "exact"]
    assert len(rows) == len(CLAIMS) - len(exact) > 0
    for c in CLAIMS[CLAIMS["estimand"] != "exact"].to_dict("records"):
        [row] = [r for r in rows if f"`{c['id']}`" in r]
        sure = [f"p = {float(c['p_holm']):.2g} after Holm"] if c["verdict"] != "INCONCLUSIVE" else []
        said = "; ".join([*sure, *([f"{findings.SCOPE_WORDS[c['scope']]}: {c['scope']}"] if c.get("scope") else [])])
        assert f"| **{c['verdict']}**" + (f" ({said}" if said else " |") in row, row
        if c.get("scope") == "UNSETTLED":  # where it holds, and why its weakest universe is open
            weakest = re.search(r"weakest ([^:;]+): ([^;]+)", c["scope_detail"])
            assert f"{c['scope']}; {c['scope_detail'].split('; ')[0]}, but at {weakest[1]} {weakest[2]}" in row, row
    checks = readme.block(README, "headline")
    for c in exact.to_dict("records"):
        assert f"`{c['id']}`" in checks and f"`{c['id']}`" not in readme.block(README, "findings")
    assert f"{len(exact)} of {len(exact)} construction checks hold on every run" in checks


def test_the_tally_counts_the_findings_alone():
    tally = next(line for line in readme.block(README, "findings").splitlines() if "claims besides the" in line)
    judged = CLAIMS[CLAIMS["estimand"] != "exact"]
    assert tally.startswith(f"{len(judged)} claims besides the {len(CLAIMS) - len(judged)} construction checks:")
    for verdict, n in judged["verdict"].value_counts().items():
        assert f"{verdict} {n}" in tally


def test_every_number_is_in_percent_or_pp_and_every_open_claim_says_why():
    table = readme.block(README, "findings")
    assert not re.search(r"mean -?0\.\d{3}", table), "a raw fraction"
    for row in rows_of(table):
        if "**INCONCLUSIVE**" in row:
            assert re.search(r"Open: (its t-test's assumption fails on these seeds \(.+\), and on the share of seeds instead: )?(the effect lies in the margin's zone of doubt|the seeds split|the seeds lean toward (SUPPORTED|CONTRADICTED), short of it|the design could "
                             r"not reach a verdict)", row), row  # fmt: skip
        if re.search(r"of its \d+ cells", row):  # a claim judged in several cells names the one shown and why
            why = "the one that contradicts it most clearly" if "**CONTRADICTED**" in row else "the one closest to the boundary"
            assert f"{why}, which decides the verdict" in row, row


@pytest.mark.parametrize("evidence, p, said", [
    ("p = 0.055 for CONTRADICTED", "0.055", "the seeds lean toward CONTRADICTED, short of it: p = 0.055 > alpha 0.05"),
    ("p = 0.5 for neither verdict", "0.5", "the seeds split: neither verdict has evidence at alpha 0.05 (p = 0.5 both ways)"),
], ids=["leans", "splits"])  # fmt: skip
def test_an_open_claim_whose_test_leans_one_way_names_that_way_and_its_p(reference, evidence, p, said):
    """An INCONCLUSIVE row whose test points toward a verdict (claims.csv: 'p = ... for CONTRADICTED') says
    so with its p, not that its seeds split evenly; one with no evidence either way says the seeds split.
    Planted in a copy of reference/ (L3 made open), so the rule is checked whatever the reference decides."""
    path = reference / "length" / "claims.csv"
    claims = pd.read_csv(path, dtype=str, keep_default_na=False)
    at = claims["id"] == "L3-nope-extrapolates"
    claims.loc[at, "verdict"] = "INCONCLUSIVE"
    claims.loc[at, "p_value"] = claims.loc[at, "p_holm"] = p
    claims.loc[at, "evidence"] = claims.loc[at, "evidence"].str.replace(r"p = [\d.e-]+ for \w+", evidence, regex=True)
    claims.to_csv(path, index=False)
    [row] = [r for r in rows_of(findings.claims_table(reference, CFG)) if "`L3-nope-extrapolates`" in r]
    assert "**INCONCLUSIVE**" in row and said in row and "too evenly" not in row, row


def test_a_measured_effect_is_the_mean_over_seeds_of_the_paired_runs_with_its_t_tests_interval():
    """P4 at length 32, bidirectional: learned minus sinusoidal per seed, from reference/'s summary.csv alone;
    its t-test decided it (one look: the position study is not adaptive), so the interval is the t-interval."""
    summary = pd.read_csv(REPO / "reference" / "position" / "summary.csv")
    cell = summary[summary["run_id"].str.contains("attn_mask~bidirectional/seq_len~32/")]
    seed = cell["run_id"].str.extract(r"seed~(\d+)")[0].astype(int)
    level = cell["run_id"].str.extract(r"pos_enc~(\w+)")[0]
    acc = cell.assign(seed=seed, level=level).pivot(index="seed", columns="level", values="test_acc")
    diff = (acc["learned"] - acc["sinusoidal"]).to_numpy()
    lo, hi = scipy_stats.t.interval(0.95, len(diff) - 1, loc=diff.mean(), scale=scipy_stats.sem(diff))
    [row] = [r for r in rows_of(readme.block(README, "findings")) if "`P4-learned-like-sinusoidal`" in r]
    number = lambda x: f"{100 * x:+.1f}".removesuffix(".0").replace("-", "−") + " pp"  # noqa: E731
    assert f"difference {number(diff.mean())} (95 % interval {number(lo)} to {number(hi)}) over {len(diff)} seeds" in row, row


def test_the_findings_are_the_claims_the_config_names_in_its_order_the_checks_apart(reference):
    cfg = config.load(REPO / "config" / "config.yaml")
    cfg.raw.setdefault("report", {})["headline"] = ["P4-learned-like-sinusoidal", "C1-chance", "C3-heads"]
    text = findings.headline(reference, cfg)
    numbered = [line for line in text.splitlines() if re.match(r"\d+\. ", line)]
    assert "`P4-learned-like-sinusoidal`" in numbered[0] and "`C3-heads`" in numbered[1], numbered
    assert not any("`C1-chance`" in line for line in numbered) and "`C1-chance` (6 runs)" in text


def test_a_verdict_changed_in_reference_fails_the_check(reference):
    path = reference / "position" / "claims.csv"
    claims = pd.read_csv(path)
    claims.loc[claims["id"] == "P3-rope-not-worse-at-32", "verdict"] = "CONTRADICTED"
    claims.to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    assert len(found) == 1 and "findings" in found[0] and "P3-rope-not-worse-at-32" in found[0], found


def test_a_claim_added_to_reference_fails_the_check(reference):
    path = reference / "length" / "claims.csv"
    claims = pd.read_csv(path)
    extra = claims.iloc[[0]].assign(id="L9-planted", statement="A planted claim.")
    pd.concat([claims, extra]).to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    # the table gains a row; the headline's count of claims changed after their runs counts one claim more
    assert any("findings" in line for line in found) and all("findings" in x or "headline" in x for x in found), found


def test_a_findings_effect_changed_in_reference_fails_the_check(reference):
    """One run of the first finding reference/ measures again from test accuracy scores otherwise: its
    effect changes."""
    rows = findings.claim_rows(reference, CFG)
    first = next(r for r in readme.shown(rows, CFG) if r.claim.metric == "test_acc" and not r.claim.exact)
    path = reference / first.study / "summary.csv"
    summary = pd.read_csv(path, dtype={"run_id": str})
    keys = dict(first.claim.where) | ({first.claim.factor: first.claim.levels[-1]} if first.claim.factor else {})
    where = summary["run_id"].map(lambda r: all(f"{k}~{v}/" in r for k, v in keys.items()))
    summary.loc[where[where].index, "test_acc"] -= 0.1  # every run of the claim's second level
    summary.to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    assert any("headline" in line for line in found), found


def test_a_run_count_changed_in_reference_fails_the_check(reference):
    path = reference / "lesson" / "summary.csv"
    pd.read_csv(path).iloc[1:].to_csv(path, index=False)
    found = readme.differences(README, CFG, reference)
    assert any("runs block" in line for line in found), found
    assert readme.agreement(CFG, reference)[0].startswith("reference/lesson keeps 11 runs, benchmarks/reproduce.md counts 12")


def test_the_time_of_a_study_changed_in_the_reproduction_fails_the_check(root):
    data = json.loads((root / f"{readme.FULL}.json").read_text(encoding="utf-8"))
    depth = data["studies"]["depth"]
    cores, seconds = data["machine"]["cores"], depth["sum_train_seconds"] + depth.get("scope_train_seconds", 0.0)
    [row] = [r for r in readme.block(README, "runs").splitlines() if r.startswith("| `depth` |")]
    assert f"{seconds / 60 / cores:.1f} min on {cores} cores" in row, row
    data["studies"]["depth"]["sum_train_seconds"] = seconds + 600
    (root / f"{readme.FULL}.json").write_text(json.dumps(data), encoding="utf-8")
    found = readme.differences(README, CFG, REPO / "reference", root)
    assert len(found) == 1 and "runs block" in found[0], found


def test_a_hand_edit_of_the_table_fails_the_check():
    edited = README.replace("| **CONTRADICTED**", "| **SUPPORTED**", 1)  # a row of the table
    assert edited != README
    found = readme.differences(edited, CFG, REPO / "reference")
    assert len(found) == 1 and "findings" in found[0], found


def test_the_findings_read_whatever_columns_reference_has(reference):
    """Without sentence and scope columns, and with columns a later claims table adds: the row reads the
    evidence's first clause, no scope, and the new columns change nothing."""
    path = reference / "depth" / "claims.csv"
    claims = pd.read_csv(path).drop(columns=["sentence", "scope"])
    claims.assign(test="betting e-process", look_seeds="10, 15").to_csv(path, index=False)
    c5b = claims.set_index("id").loc["C5b-warmup-helps-post"]
    better, worse, tied = re.search(r"(\d+) improved, (\d+) worsened, (\d+) tied", c5b["evidence"]).groups()
    table = findings.claims_table(reference, CFG)
    row = next(line for line in table.splitlines() if "`C5b-warmup-helps-post`" in line)
    assert row.split(" | ")[2] == f"**{c5b['verdict']}** (p = {c5b['p_holm']:.2g} after Holm)" and f"{better} better, {worse} worse, {tied} tied" in row, row
    assert "betting e-process" not in row and "look_seeds" not in row, row


def test_a_claim_reference_cannot_measure_keeps_its_own_counts_and_its_stored_interval(reference):
    """Without the length study's evaluations, its rows give the stored mean in pp and the share of seeds'
    stored interval; with evaluations kept, the claim is measured again from them."""
    (reference / "length" / "evaluations.csv").unlink()
    [row] = [r for r in rows_of(findings.claims_table(reference, CFG)) if "`L4-nope-beats-alibi`" in r]
    assert "mean +" in row and " pp over 10 seeds; 10 of 10 seeds better, 0 worse, 0 tied" in row, row
    summary = pd.read_csv(reference / "length" / "summary.csv", dtype={"run_id": str})
    settings = findings.run_factors(summary["run_id"])
    value = settings["pos_enc"].map({"none": 1.0, "alibi": 0.5}).fillna(0.0).to_numpy()
    ev = pd.concat([summary[["run_id", "hash"]].assign(pos_enc=settings["pos_enc"], seed=settings["seed"].astype(int),
                                                       metric="exact_match", length=n, value=value if n > 20 else 1.0,
                                                       correct=0, total=64, trained=n <= 20) for n in range(1, 41)])  # fmt: skip
    ev.to_csv(reference / "length" / "evaluations.csv", index=False)
    claim = next(c for c in CFG.studies["length"].claims if c.id == "L4-nope-beats-alibi")
    from ablation import verdicts

    m = findings.measure(claim, findings.reference_runs(reference, "length", CFG), verdicts.Judge.of(CFG.stats))
    assert m.mean == pytest.approx(0.5) and [g["label"] for g in m.groups] == ["pos_enc=none", "pos_enc=alibi"]
    assert m.signs == (10, 0, 0) and readme.LENGTHS in dict(readme.pictures([], CFG, reference))


def test_make_readme_check_exits_1_on_a_readme_out_of_step(tmp_path, reference):
    (reference / "lesson" / "claims.csv").write_text(
        (reference / "lesson" / "claims.csv").read_text(encoding="utf-8").replace("SUPPORTED", "INCONCLUSIVE"))
    args = [sys.executable, "-m", "ablation.readme", "--check", "--reference", str(reference)]
    proc = subprocess.run(args, cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 1 and "make readme" in proc.stdout, proc.stdout + proc.stderr
    proc = subprocess.run(args[:-2], cwd=REPO, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_readme_is_short():
    assert len(README.splitlines()) <= 200


def test_the_readme_opens_with_its_findings_and_pictures_within_60_lines():
    head = "\n".join(README.splitlines()[:60])
    assert "<!-- END headline -->" in head and re.search(r"^1\. .*: \*\*[A-Z]+\*\*", head, re.M)
    for path in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", readme.block(README, "headline")):
        assert (REPO / path).is_file(), path
    assert f"]({readme.PICTURE})" in head


def test_the_words_quote_the_config_and_the_lesson_as_they_stand():
    """The glossary's alpha, confidence and the lesson's numbers are the config's (C1-chance's source)."""
    words = README[README.index("**Words**"):README.index("## Every claim")]
    assert f"at alpha {CFG.stats['alpha']:g}" in words and f"A **{100 * CFG.stats['confidence']:g} % interval**" in words
    source = next(c.source for c in CFG.studies["lesson"].claims if c.id == "C1-chance")
    mean, sd, seeds = re.search(r"([\d.]+) % \+/- ([\d.]+) % over (\d+) seeds", source).groups()
    assert f"{mean} % ± {sd} % without positional encoding" in words and f"over {seeds} seeds" in words


def test_the_readme_names_the_report_of_a_study():
    assert f"`{selection.report_name(CFG, ['length'])}`" in README


def test_make_help_lists_every_target_with_a_comment():
    proc = subprocess.run(["make", "-s", "help"], cwd=REPO, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    documented, commented = [], False  # a target whose paragraph (no blank line between) holds a ## comment
    for line in (REPO / "Makefile").read_text(encoding="utf-8").splitlines():
        commented = (commented or line.startswith("## ")) and line.strip() != ""
        if commented and (target := re.match(r"([a-z][a-z0-9_-]*):([^=]|$)", line)):
            documented.append(target[1])
            commented = False
    listed = re.findall(r"^  make (\S+)", proc.stdout, re.M)
    assert documented and set(documented) <= set(listed) and "reproduce" in listed, proc.stdout


def test_the_pages_list_every_claim_key_and_kind_of_the_schema_and_every_local_rule_of_the_workflow():
    assert readme.page_differences() == []
    keys = readme.block((REPO / "config" / "README.md").read_text(encoding="utf-8"), "claim-keys")
    for key in ("metric", "lengths", "robust_over", "exact"):
        assert f"| `{key}` |" in keys
    assert "exact_match" in keys  # a task's metric, as the default config's length study reads


def test_a_local_rule_added_to_the_workflow_fails_the_pages_check(tmp_path):
    root = tmp_path / "repo"
    shutil.copytree(REPO / "workflow", root / "workflow")
    shutil.copytree(REPO / "docs", root / "docs")
    shutil.copytree(REPO / "config", root / "config")
    rules = root / "workflow" / "rules" / "common.smk"
    rules.write_text(rules.read_text(encoding="utf-8").replace("localrules:\n", "localrules:\n    planted,\n", 1))
    found = readme.page_differences(root)
    assert found == ["docs/cluster.md's localrules block differs from its source (run `make readme`)"], found


def test_a_claim_the_reference_judged_with_another_estimand_says_so(reference):
    """reference/ judged a claim with the estimand of its day: where the config now states another, the
    row says which, and the command that judges it anew."""
    study, claim = next((name, c) for name, s in CFG.studies.items() for c in s.claims if not c.exact)
    path = reference / study / "claims.csv"
    table = pd.read_csv(path, dtype=str, keep_default_na=False)
    other = "share" if claim.estimand == "mean" else "mean"
    table.loc[table["id"] == claim.id, "estimand"] = other
    table.to_csv(path, index=False)
    text = findings.claims_table(reference, CFG)
    row = next(line for line in text.splitlines() if f"`{claim.id}`" in line)
    assert f"(judged with the estimand {other}; the config now asks for {claim.estimand}: `make reproduce STUDY={study}`" in row


def test_the_findings_count_the_published_rankings_the_reference_reproduces(reference):
    """A study's published table in reference/ is read into one sentence: how many rankings hold, and
    for each its pairs in the paper's order here; moving one level's mean out of order changes it."""
    for other in reference.glob("*/published.csv"):
        other.unlink()
    tab = pd.DataFrame({"level": ["none", "alibi", "rope"], "here_mean": [0.9, 0.5, 0.1], "published": [0.99, 0.29, 0.0]})
    tab.to_csv(reference / "length" / "published.csv", index=False)
    assert "as the paper does in **1 of 1**" in findings.rankings_short(reference, CFG)
    assert "`length` 3 of 3" in findings.rankings_short(reference, CFG)
    tab.assign(here_mean=[0.05, 0.5, 0.1]).to_csv(reference / "length" / "published.csv", index=False)
    line = findings.rankings_long(reference, CFG)
    assert "reproduced: **0 of 1**" in line and "none < rope" in line, line
    assert "as the paper does in **0 of 1**" in findings.rankings_short(reference, CFG)


def test_the_intervals_are_the_pipelines_own():
    """A one-sample claim's interval is intervals.mean_ci over its seeds: seeds all at 100 % give
    Anderson's bound, not [100 %, 100 %]."""
    rows = findings.claim_rows(REPO / "reference", CFG)
    r = next(r for r in rows if r.measured is not None and r.claim.scale == "value" and len(r.measured.groups) == 1)
    lo, hi, _ = intervals.mean_ci(r.measured.groups[0]["values"], 0.95, (0.0, 1.0))
    assert (r.measured.lo, r.measured.hi) == pytest.approx((lo, hi)) and np.isfinite(lo)


def test_the_report_page_shows_the_reports_first_screen_at_1280_px():
    """docs/report.md shows the picture benchmarks/screenshots.py --first-screen takes: 1280 px wide."""
    page = (REPO / "docs" / "report.md").read_text(encoding="utf-8")
    [path] = re.findall(r"!\[[^\]]*\]\((img/report_first_screen\.png)\)", page)
    header = (REPO / "docs" / path).read_bytes()[:24]
    assert header[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(header[16:20], "big") == 1280


def test_the_runs_total_counts_a_run_two_studies_share_once_within_the_plans_range():
    summaries = [findings.kept_summary(REPO / "reference", name) for name in CFG.studies]
    distinct = pd.concat(summaries)["hash"].nunique()
    [row] = [r for r in readme.block(README, "runs").splitlines() if r.startswith("| all |")]
    low, high, kept = re.fullmatch(r"\| all \| [^|]* \| +\| (\d+)–(\d+) \| ([^|]*) \|.*", row).groups()
    low, high = int(low), int(high)
    assert kept.startswith(f"{distinct} ({sum(map(len, summaries))} counted in each study)"), row
    assert low <= distinct <= high, row


def test_an_open_mean_claim_whose_t_test_assumption_fails_says_so_and_what_decided_instead():
    rows = rows_of(readme.block(README, "findings"))
    fell_back = CLAIMS[(CLAIMS["verdict"] == "INCONCLUSIVE") & CLAIMS["evidence"].str.contains("share of seeds instead")]
    for c in fell_back.to_dict("records"):
        [row] = [r for r in rows if f"`{c['id']}`" in r]
        reason = re.search(r"fails: (.+?); share of seeds instead", c["evidence"])[1]
        assert f"its t-test's assumption fails on these seeds ({reason}), and on the share of seeds instead:" in row, row


def test_every_claim_changed_after_its_runs_says_so_with_what_the_registered_claim_reads():
    rows = rows_of(readme.block(README, "findings"))
    changed = CLAIMS[(CLAIMS["changed_after_runs"] != "") & (CLAIMS["estimand"] != "exact")]
    assert len(changed) > 0
    for c in changed.to_dict("records"):
        [row] = [r for r in rows if f"`{c['id']}`" in r]
        assert f"changed after its runs: {c['changed_after_runs']}" in row, row
        if c["verdict_registered"]:
            assert f"the claim as registered reads {c['verdict_registered']}" in row, row
        else:  # its registered family cannot be judged on these runs: the row names the claim that cannot
            why = re.search(r"claim '([^']+)'", c["sentence"])
            assert f"the claim as registered has no verdict on these runs: its registered family holds `{why[1]}`" in row, row
    n = (CLAIMS["changed_after_runs"] != "").sum()
    assert f"Changed after their runs: **{n} of {len(CLAIMS)} claims**" in readme.block(README, "headline")
    edited = CLAIMS[CLAIMS["changed_after_runs"] != ""]
    other = (edited["verdict_registered"] != edited["verdict"]).sum()
    assert 0 < other < n  # C5a's edit changed no verdict; others did
    assert f"as registered, **{other} of them** read another verdict or none on the same runs" in readme.block(README, "headline")


def test_a_decided_mean_claim_whose_t_test_assumption_fails_says_the_share_of_seeds_decided():
    rows = rows_of(readme.block(README, "findings"))
    fell_back = CLAIMS[(CLAIMS["verdict"] != "INCONCLUSIVE") & CLAIMS["evidence"].str.contains("share of seeds instead")
                       & (CLAIMS["estimand"] != "exact")]  # fmt: skip
    assert len(fell_back) > 0
    for c in fell_back.to_dict("records"):
        [row] = [r for r in rows if f"`{c['id']}`" in r]
        reason = re.search(r"fails: (.+?); share of seeds instead", c["evidence"])[1]
        assert f"Decided on the share of seeds, not the mean: its t-test's assumption fails on these seeds ({reason})" in row


def test_a_share_interval_stands_beside_the_share_never_beside_a_mean():
    """A claim the share of seeds decided (the estimand share, or a mean claim whose t-test's assumption
    failed and the share decided instead) shows claims.csv's interval of that share labelled as the
    share's, beside its count of seeds; the same numbers never stand unlabelled, where a mean's or a
    difference's interval stands (L1: 10 of 10 seeds reached 95 %, its Clopper-Pearson 69.2 % to 100 %)."""
    number = lambda x: f"{100 * float(x):.1f}".removesuffix(".0") + " %"  # noqa: E731
    text = findings.claims_table(REPO / "reference", CFG) + "\n" + findings.headline(REPO / "reference", CFG)
    lines = [line for line in text.splitlines() if line.startswith("| ") or re.match(r"\d+\. ", line)]
    decided = CLAIMS[(CLAIMS["estimand"] == "share") | CLAIMS["evidence"].str.contains("share of seeds instead")]
    assert len(decided) > 5
    for c in decided.to_dict("records"):
        lo, hi = number(c["share_lo"]), number(c["share_hi"])
        shown = [line for line in lines if f"`{c['id']}`" in line]
        assert shown, c["id"]
        for line in shown:
            assert re.search(rf"95 % interval of (the|that) share {re.escape(lo)} to {re.escape(hi)}(?![\d.])", line), line
            assert f"95 % interval {lo} to {hi}" not in line, line
    [l1] = [line for line in lines if "`L1-trained-lengths`" in line]
    assert re.search(r"exact match at lengths 1–20 [\d.]+ % \(95 % interval [\d.]+ % to [\d.]+ %\) over 10 seeds; "
                     r"10 of 10 seeds reached 95 % \(95 % interval of the share 69\.2 % to 100 %\)", l1), l1


def test_a_slope_claim_names_each_level_its_count_and_the_level_its_mean_is_of():
    """C6 reads two levels (post-norm should grow, pre-norm stay flat): its row names the level each count
    of seeds and the stored mean belong to, and the share's interval stands beside the count it is of."""
    [row] = [r for r in rows_of(readme.block(README, "findings")) if "`C6-grad-norms`" in r]
    [c6] = CLAIMS[CLAIMS["id"] == "C6-grad-norms"].to_dict("records")
    mean = f"{float(c6['estimate']):.3f}".replace("-", "−")
    assert f"over the layers at `norm=post`: mean {mean} per layer over {c6['n']} seeds" in row, row
    share = f"(95 % interval of that share {100 * float(c6['share_lo']):.1f}".removesuffix(".0")
    assert re.search(rf"`norm=post` \d+ of \d+ seeds grew by more than [\d.]+ per layer {re.escape(share)}", row), row
    assert re.search(r"`norm=pre` \d+ of \d+ seeds stayed within ±[\d.]+ per layer", row), row
    assert "; CONTRADICTED" not in row and row.count("changed after its runs") == 1, row


def test_the_runs_table_says_which_scope_setting_is_the_studys_own(tmp_path):
    """A scope universe at the study's own setting is its runs: the runs table names only the settings the
    scope adds, and says which of its universes is the study's own (the depth study with C5b asked over lr)."""
    raw = yaml.safe_load((REPO / "config" / "config.yaml").read_text())
    claim = next(c for c in raw["studies"]["depth"]["claims"] if c["id"] == "C5b-warmup-helps-post")
    claim["robust_over"] = {"lr": [0.003, 0.01]}
    (tmp_path / "scoped.yaml").write_text(yaml.safe_dump(raw, sort_keys=False))
    study = config.load(tmp_path / "scoped.yaml").studies["depth"]
    own = study.fixed["lr"]
    assert readme._scope_text(study) == f"; C5b-warmup-helps-post also at lr 0.003 (its scope: lr 0.003 / 0.01, {own} the study's own)"
    assert readme._scope_text(CFG.studies["depth"]) == ""
    depth = next(line for line in readme.block(README, "runs").splitlines() if line.startswith("| `depth`"))
    assert "also at" not in depth


def test_a_mean_claim_its_test_decided_shows_the_interval_of_the_claims_table():
    """Where a mean claim's t-test decided (claims.csv keeps its interval), the README's effect carries that
    interval, so the README and the report give one interval for one effect (P4: the t-interval)."""
    rows = {r.row["id"]: r for r in findings.claim_rows(REPO / "reference", CFG)}
    tested = CLAIMS[(CLAIMS["estimand"] == "mean") & (CLAIMS["ci_lo"] != "") & (CLAIMS["ci_hi"] != "")]
    assert "P4-learned-like-sinusoidal" in set(tested["id"])
    for c in tested.to_dict("records"):
        m = rows[c["id"]].measured
        assert (m.lo, m.hi) == pytest.approx((float(c["ci_lo"]), float(c["ci_hi"])), abs=1e-12), c["id"]
        said = f"(95 % interval {100 * float(c['ci_lo']):+.1f} pp to {100 * float(c['ci_hi']):+.1f} pp)".replace("-", "−")
        [row] = [r for r in rows_of(readme.block(README, "findings")) if f"`{c['id']}`" in r]
        assert said.replace(".0 pp", " pp") in row, (said, row)


def test_a_margin_on_a_0_1_metric_reads_as_not_losing():
    """C5a compares convergence (0 or 1 a run): a seed's difference is -100, 0 or +100 pp, so its 10 pp margin
    admits no loss, and its row says "did not lose" rather than "lost at most 10 pp"."""
    [row] = [r for r in rows_of(readme.block(README, "findings")) if "`C5a-prenorm-converges`" in r]
    assert re.search(r"\d+ of \d+ seeds did not lose \(", row) and "so the 10 pp margin admits no loss" in row, row
    assert "lost at most 10 pp" not in row
