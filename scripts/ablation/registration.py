"""A study's claims as they were before its runs existed: each claim's test, registered, and what changed since.

A claim's test is what decides its verdict: its kind and the kind's keys (threshold, margin, levels,
ties, ...), estimand, test, cells, where, metric, lengths, share, exact, robust_over, and the study's
seeds and adaptive block. Its words (statement, source, note, undecidable_ok) are not. A study's registration,
``<outdir>/results/<study>/registration.json``, holds each claim's test as canonical JSON with its
sha256, the raw claim, the time and the commit.

The workflow writes it when Snakemake reads the config (``workflow/rules/common.smk``), before any
job runs: while none of the study's runs is in the run store it follows the config, and from the
study's first run on it stays. A study that has runs and no registration is registered then, and its
rows say so; where the committed reference holds these runs, its registration is taken instead.
``make register`` registers the chosen studies anew: the explicit step that accepts a changed claim.

The claims table reads it (``annotate``): ``registered`` (the claim's registered sha256),
``changed_after_runs`` (what changed, in words) and ``verdict_registered`` (the registered claim's
verdict on the same runs, its family judged as registered, by the claims table's own code).

    python -m ablation.registration register CONFIG [--studies a,b]     # make register
    python -m ablation.registration history [--config config/config.yaml] [--reference reference]
"""

from __future__ import annotations

import argparse
import csv
import datetime as dt
import hashlib
import io as text_io
import json
import sys
from dataclasses import fields, replace
from pathlib import Path

import yaml

from . import REPO_DIR, SCHEMA_PATH, git, git_state, io
from .config import ConfigError, Study, check_claims, validate
from .config import load as load_config
from .design import adaptive_block, scope_runs
from .kinds import Claim
from .selection import names
from .store import STORE, is_complete

FILE = "registration.json"
WORDS = ("id", "statement", "source", "note", "undecidable_ok")
"""A claim's fields that say it rather than test it (``undecidable_ok``: why the plan may accept its
seeds): not part of its test. Every other field of ``kinds.Claim`` is."""
COLUMNS = ("registered", "changed_after_runs", "verdict_registered")
BEFORE, AFTER, HISTORY = "before its runs", "after its runs existed", "when its runs were first made"
"""When a registration was made: before any of the study's runs, after some existed, or (read from git
history) as the config stood when the reference's runs were first made."""
ADDED = "added after its runs"
ORDER = ("kind", "estimand", "test", "metric", "lengths", "where", "cells", "factor", "levels", "growing", "flat",
         "threshold", "target", "tolerance", "margin", "flat_margin", "min_slope", "ties", "share", "exact",
         "robust_over", "seeds", "adaptive")  # fmt: skip
"""The order in which a claim's changes are said; a key not named here comes after them."""
DESIGN = ("seeds", "adaptive")
"""A claim's test keys that belong to its study."""
ONLY_WHEN = {"test": lambda test: test.get("estimand") == "mean"}
"""Keys that take part in a claim's test only under a condition (``test``: the test of estimand mean):
left out otherwise, so that a default that does not apply registers nothing."""
BEFORE_THE_KEY = {"test": "betting"}
"""What a key meant before the code had it, for a test registered (or committed) without it: estimand
mean was the betting e-process before ``test`` could choose the t-test."""
SCHEMA = "workflow/schemas/config.schema.yaml"
"""The config schema in the repository (a past commit's claim keys)."""


# --------------------------------------------------------------------------- a claim's test


def _plain(value):
    """JSON's types, an integral float as an int (1.0 and 1 register alike), mappings as dicts."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        return int(value) if value.is_integer() else value
    if isinstance(value, int):
        return value
    if hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    return [_plain(v) for v in value]


def claim_test(claim: Claim, seeds, adaptive: dict | None, lacking=()) -> dict:
    """Everything that decides the claim's verdict, defaults filled in: its kind and the kind's keys,
    every other field of ``kinds.Claim`` but its words, and its study's design. ``lacking``: keys the
    code of the claim's day did not have (``BEFORE_THE_KEY`` says what they meant then)."""
    test = {"kind": claim.kind.name, **dict(claim.keys)}
    test |= {f.name: getattr(claim, f.name) for f in fields(claim) if f.name not in (*WORDS, "kind", "keys", "raw")}
    test |= {k: BEFORE_THE_KEY[k] for k in lacking if k in BEFORE_THE_KEY}
    test = {k: v for k, v in test.items() if k not in ONLY_WHEN or ONLY_WHEN[k](test)}
    return _plain(test | {"seeds": sorted(seeds), "adaptive": adaptive})


def canonical(test: dict) -> str:
    """The test as canonical JSON: sorted keys, no spaces; what its sha256 is taken of."""
    return json.dumps(_plain(test), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(test: dict) -> str:
    return hashlib.sha256(canonical(test).encode("utf-8")).hexdigest()


def entry(claim: Claim, seeds, adaptive: dict | None, lacking=()) -> dict:
    """One claim of a registration: its id, the sha256 of its test, the test, and the claim as the config gave it."""
    test = claim_test(claim, seeds, adaptive, lacking)
    return {"id": claim.id, "sha256": digest(test), "test": test, "claim": _plain(claim.to_dict())}


def register(study_cfg: Study, adaptive: dict | None = None, *, when: str = BEFORE, runs_existed: int | None = 0,
             runs: int | None = None, commit: str | None = None, registered_at: str | None = None,
             source: str = "", lacking=()) -> dict:  # fmt: skip
    """The registration of a study: each claim's test and sha256, its seeds and adaptive block, when
    (``BEFORE``, ``AFTER``, ``HISTORY``), how many of its runs existed then, the commit and the time;
    ``lacking``: claim keys the code of a past commit did not have (``claim_test``)."""
    if commit is None:
        state = git_state()
        commit = (state["git_commit"] or "unknown") + (" (with uncommitted changes)" if state["git_dirty"] else "")
    return {
        "study": study_cfg.name,
        "registered_at": registered_at or dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": commit,
        "when": when,
        "runs_existed": runs_existed,
        "runs": len(study_cfg.runs()) if runs is None else runs,
        "source": source,
        "seeds": sorted(study_cfg.seeds),
        "adaptive": _plain(adaptive),
        "claims": [entry(c, study_cfg.seeds, adaptive, lacking) for c in study_cfg.claims],
    }


def load(path) -> dict:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def same_claims(a: dict, b: dict) -> bool:
    """Whether two registrations register the same tests (whenever and wherever they were made)."""
    return [(e["id"], e["sha256"]) for e in a["claims"]] == [(e["id"], e["sha256"]) for e in b["claims"]]


# --------------------------------------------------------------------------- what changed, in words


def _words(value) -> str:
    # an absent key reads "unset": "none" would read as a level (pos_enc none)
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_words(v)}" for k, v in value.items()) + "}" if value else "unset"
    if isinstance(value, list):
        ints = all(isinstance(v, int) and not isinstance(v, bool) for v in value)
        if ints and len(value) >= 3 and value == list(range(value[0], value[0] + len(value))):
            return f"{value[0]}–{value[-1]}"
        return "[" + ", ".join(_words(v) for v in value) + "]"
    return str(value)


def _test(claim: dict) -> dict:
    """A registration's entry's test, or a test as it is (a claim's own ``test`` key is its test's name)."""
    return _plain(claim["test"] if "sha256" in claim else claim)


def changes(registered_claim: dict, current_claim: dict) -> list[str]:
    """What differs between a registered claim's test and the current one, key by key in ``ORDER``:
    "threshold 0.97 → 0.6", "estimand share → mean"; [] when they are the same. Each side is a
    registration's entry (``entry``) or a test (``claim_test``). A key the registered test lacks (a
    field newer than the registration) is not a change: the registration could not name it."""
    old, new = _test(registered_claim), _test(current_claim)
    old |= {k: v for k, v in BEFORE_THE_KEY.items() if k not in old and k in new and ONLY_WHEN.get(k, bool)(old)}
    keys = [k for k in ORDER if k in old] + sorted(set(old) - set(ORDER))
    out = []
    for key in keys:
        a, b = old.get(key), new.get(key)
        if canonical({"v": a}) == canonical({"v": b}):
            continue
        if isinstance(a, dict) and isinstance(b, dict) and key == "adaptive":
            out += [f"adaptive {k} {_words(a.get(k))} → {_words(b.get(k))}" for k in sorted(set(a) | set(b))
                    if a.get(k) != b.get(k)]  # fmt: skip
        else:
            out.append(f"{key} {_words(a)} → {_words(b)}")
    return out


# --------------------------------------------------------------------------- written before the runs


def runs_present(study_cfg: Study, store: Path = STORE) -> tuple[int, int]:
    """(how many of the study's first-round runs, its scopes' included, are complete in ``store``, how many it has)."""
    hashes = {r.hash for r in study_cfg.runs()} | {r.hash for r in scope_runs(study_cfg, study_cfg.seeds)}
    return sum(is_complete(Path(store) / h) for h in hashes), len(hashes)


def _reference_hashes(path: Path) -> set[str]:
    if not path.is_file():
        return set()
    with path.open(encoding="utf-8", newline="") as fh:
        return {row["hash"] for row in csv.DictReader(fh) if row.get("hash")}


def adopted(reference: Path, study_cfg: Study, store: Path = STORE) -> dict | None:
    """The committed reference's registration of the study, where the reference's runs are runs of the
    study in ``store``: an earlier registration of the claims these runs were first judged with."""
    path = Path(reference) / study_cfg.name / FILE
    if not path.is_file():
        return None
    ours = {r.hash for r in study_cfg.runs()} | {r.hash for r in scope_runs(study_cfg, study_cfg.seeds)}
    shared = {h for h in _reference_hashes(Path(reference) / study_cfg.name / "summary.csv") & ours
              if is_complete(Path(store) / h)}  # fmt: skip
    return (load(path) | {"adopted_from": path.as_posix()}) if shared else None


def write(cfg, results, chosen=None, *, force: bool = False, store: Path = STORE, reference=None) -> list[Path]:
    """Register each study of ``chosen`` (default: every study of ``cfg``) in ``results``/<study>/:
    a study without a registration, or whose registration precedes its runs while none exists yet;
    ``force`` (``make register``): every chosen study anew. A study whose runs exist and that has none
    takes the reference's registration of these runs (``adopted``), else is registered ``AFTER``.
    Returns the files written."""
    written = []
    for name in chosen or list(cfg.studies):
        study_cfg, path = cfg.studies[name], Path(results) / name / FILE
        present, total = runs_present(study_cfg, store)
        old = load(path) if path.is_file() else None
        if old is not None and not force and (old.get("when") != BEFORE or present):
            continue  # registered, and its runs exist: it stays
        new = None if force or not present or reference is None else adopted(reference, study_cfg, store)
        if new is None:
            new = register(study_cfg, adaptive_block(cfg.raw["studies"][name]), when=AFTER if present else BEFORE,
                           runs_existed=present, runs=total)  # fmt: skip
        if old is not None and not force and old.get("when") == new["when"] and same_claims(old, new):
            continue  # the same claims before the same (absent) runs: the file, and its time, stay
        io.write_json(path, new)
        written.append(path)
    return written


# --------------------------------------------------------------------------- the claims table


def _design(own: dict, reg: dict) -> tuple[list, dict | None]:
    """A study's seeds and adaptive block as the claims' family spec gives them (``adaptive`` holds the
    seeds of an adaptive study); the registration's seeds where the spec has none."""
    block = own.get("adaptive")
    if block:
        return block["seeds"], {k: v for k, v in block.items() if k != "seeds"}
    return own.get("seeds", reg["seeds"]), None


def _selects(claim: dict, summary) -> bool:
    """Whether a claim's ``where`` selects any run of ``summary`` (a column it names but the runs lack: yes)."""
    for col, value in (claim.get("where") or {}).items():
        values = {str(v) for v in (value if isinstance(value, list) else [value])}
        if col in summary and not summary[col].astype(str).isin(values).any():
            return False
    return True


def _registered_runs(runs, reg: dict | None, own: dict):
    """A study's runs with its registered claims and design; a fixed registered design reads its registered seeds."""
    if reg is None:
        return runs
    # an exact claim whose cells today's design no longer trains (a factor level dropped) has nothing to
    # check and no family to weigh in: it is left out; any other claim is judged, or says why it cannot be
    entries = [e["claim"] for e in reg["claims"] if not (e["claim"].get("exact") and not _selects(e["claim"], runs.summary))]
    claims = tuple(check_claims(entries, own["factors"], list(runs.summary.columns)))
    design = {"seeds": reg["seeds"]} | reg["adaptive"] if reg.get("adaptive") else None

    def keep(df):
        if df is None or design is not None or "seed" not in df:
            return df
        return df[df["seed"].isin(reg["seeds"])].reset_index(drop=True)

    scope = runs.scope and replace(runs.scope, claims=claims, summary=keep(runs.scope.summary),
                                   init_grads=keep(runs.scope.init_grads), evaluations=keep(runs.scope.evaluations))  # fmt: skip
    return replace(runs, claims=claims, design=design, summary=keep(runs.summary), init_grads=keep(runs.init_grads),
                   evaluations=keep(runs.evaluations), scope=scope)  # fmt: skip


def annotate(table, studies: list, spec: dict, files: dict, evaluate):
    """The claims table (``table``: rows with ``study`` and ``id``) with ``COLUMNS`` and the words of
    each change appended to its ``sentence``.

    ``studies``: the family's ``StudyRuns`` as judged; ``spec``: the claims' family spec (stats, and
    per study factors, claims, seeds, adaptive); ``files``: study -> its registration file;
    ``evaluate``: the claims table's ``evaluate_all``. When any registered claim of the family differs
    from its current one, the registered family is judged as a whole (its Holm steps as registered)."""
    out = table.copy()
    for column in COLUMNS:
        out[column] = ""
    regs = {name: load(path) for name, path in files.items()}
    current, registered = {}, {}
    for runs in studies:
        if runs.name in regs:
            seeds, adaptive = _design(spec["studies"].get(runs.name, {}), regs[runs.name])
            current |= {(runs.name, c.id): entry(c, seeds, adaptive) for c in runs.claims}
            registered |= {(runs.name, e["id"]): e for e in regs[runs.name]["claims"]}
    said = {key: changes(registered[key], e) if key in registered else [ADDED] for key, e in current.items()}
    unchanged = not any(said.values()) and set(registered) <= set(current)
    verdicts, problem = {}, ""
    if regs and not unchanged:
        try:
            judged = evaluate([_registered_runs(r, regs.get(r.name), spec["studies"].get(r.name, {})) for r in studies],
                              spec["stats"])[0]  # fmt: skip
            verdicts = {(r["study"], r["id"]): r["verdict"] for r in judged.to_dict("records")}
        except Exception as exc:  # a claim registered long ago may not fit today's runs: its row says why
            problem = f"no verdict: its registered family cannot be judged on these runs ({exc})"
    for i, row in out.iterrows():
        key, reg = (row["study"], row["id"]), regs.get(row["study"])
        if reg is None:
            continue
        words = said.get(key, [])
        out.at[i, "registered"] = registered[key]["sha256"] if key in registered else ""
        out.at[i, "changed_after_runs"] = "; ".join(words)
        verdict = row["verdict"] if unchanged else verdicts.get(key, "")
        out.at[i, "verdict_registered"] = verdict if key in registered else ""
        clauses = [] if not words else [ADDED] if words == [ADDED] else [
            f"changed after its runs: {'; '.join(words)}; under the registered claim: {verdict or problem}"]
        if reg.get("when") == AFTER:
            clauses.append(f"registered after {reg['runs_existed']} of its {reg['runs']} runs existed")
        if clauses:  # the row stays one sentence: its clauses, then the registration's
            said_so = row["sentence"].rstrip(".") if isinstance(row["sentence"], str) else ""
            out.at[i, "sentence"] = "; ".join([said_so, *clauses] if said_so else clauses) + "."
    return out


# --------------------------------------------------------------------------- from git history


def _git(*args: str) -> str:
    text = git(*args)
    if text is None:
        raise ConfigError(f"git {' '.join(args)}: failed (is {REPO_DIR} a git repository with that history?)")
    return text


def config_at(commit: str, config_path: str = "config/config.yaml"):
    """The config as committed at ``commit`` (``None`` for the working tree), validated by today's code."""
    text = (REPO_DIR / config_path).read_text(encoding="utf-8") if commit is None else _git("show", f"{commit}:{config_path}")
    return validate(yaml.safe_load(text))


def lacking_at(commit: str | None) -> tuple:
    """The claim keys of today's schema that the schema at ``commit`` did not have (none for the working tree)."""
    text = git("show", f"{commit}:{SCHEMA}") if commit else None
    if not text:
        return ()
    then = set(yaml.safe_load(text)["definitions"]["claim"]["properties"])
    now = yaml.safe_load(SCHEMA_PATH.read_text(encoding="utf-8"))["definitions"]["claim"]["properties"]
    return tuple(k for k in now if k not in then)


def from_commit(commit: str, config_path: str = "config/config.yaml") -> dict[str, dict]:
    """study -> its registration as ``config_path`` stood at ``commit`` (``HISTORY``: what was stated
    when that commit was made, read by today's code; a key its code lacked means what ``BEFORE_THE_KEY``
    says; the time is the commit's)."""
    full, when = _git("log", "-1", "--format=%H %cI", commit).split()
    cfg, lacking = config_at(full, config_path), lacking_at(full)
    return {name: register(study_cfg, adaptive_block(cfg.raw["studies"][name]), when=HISTORY, runs_existed=None,
                           commit=full, registered_at=when, source=f"{config_path} at {full[:7]}", lacking=lacking)
            for name, study_cfg in cfg.studies.items()}  # fmt: skip


def first_reference_commit(study: str, reference: str = "reference") -> str | None:
    """The first commit whose ``reference/<study>/summary.csv`` holds a run of today's: when the
    reference's runs were first made."""
    now = _reference_hashes(REPO_DIR / reference / study / "summary.csv")
    for commit in _git("log", "--reverse", "--format=%H", "--", f"{reference}/{study}/summary.csv").split():
        text = git("show", f"{commit}:{reference}/{study}/summary.csv") or ""
        if now & {row.get("hash") for row in csv.DictReader(text_io.StringIO(text))}:
            return commit
    return None


def _reference_verdict(commit: str | None, study: str, claim_id: str, reference: str) -> tuple[str, str]:
    """(the verdict, the short commit) of a claim in ``reference/<study>/claims.csv`` at ``commit``; ("", "") without one."""
    if not commit:
        return "", ""
    text = git("show", f"{commit}:{reference}/{study}/claims.csv") or ""
    rows = [r for r in csv.DictReader(text_io.StringIO(text)) if r.get("id") == claim_id]
    return (rows[0]["verdict"], commit[:7]) if rows else ("", "")


def events(study: str, since: str, config_path: str = "config/config.yaml", reference: str = "reference") -> list[dict]:
    """Every change of the study's claims' tests from ``since`` on, commit by commit, then the working
    tree's: per change its claim (``None``: the study's design), words, commit, date, and the
    reference's verdict of the claim before and after the commit."""
    log = _git("log", "--reverse", "--format=%H %cs", f"{since}..HEAD", "--", config_path).split("\n")
    steps = [tuple(line.split()) for line in log if line.strip()]
    working = (REPO_DIR / config_path).read_text(encoding="utf-8") != _git("show", f"HEAD:{config_path}")
    steps += [(None, "working tree")] if working else []
    out, before, claims_file = [], from_commit(since, config_path).get(study), f"{reference}/{study}/claims.csv"
    for commit, date in steps:
        try:
            cfg = config_at(commit, config_path)
        except (ConfigError, yaml.YAMLError):
            continue  # a config today's code does not read: its changes show at the next one it does
        if study not in cfg.studies or before is None:
            before = register(cfg.studies[study], adaptive_block(cfg.raw["studies"][study]), commit=commit or "working tree",
                              lacking=lacking_at(commit)) if study in cfg.studies else None  # fmt: skip
            continue
        after = register(cfg.studies[study], adaptive_block(cfg.raw["studies"][study]), commit=commit or "working tree",
                         lacking=lacking_at(commit))  # fmt: skip
        olds = {e["id"]: e for e in before["claims"]}
        design = changes({k: before[k] for k in DESIGN}, {k: after[k] for k in DESIGN})
        if design:
            out.append({"claim": None, "words": design, "commit": commit, "date": date})
        gone = [i for i in olds if i not in {e["id"] for e in after["claims"]}]
        out += [{"claim": i, "words": ["removed"], "commit": commit, "date": date} for i in gone]
        for e in after["claims"]:
            if e["id"] not in olds:
                out.append({"claim": e["id"], "words": ["added"], "commit": commit, "date": date})
                continue
            words = [w for w in changes(olds[e["id"]], e) if w.split(" ", 1)[0] not in DESIGN]
            if words:
                last = _git("log", "-1", "--format=%H", commit + "^" if commit else "HEAD", "--", claims_file).strip()
                nxt = _git("log", "--reverse", "--format=%H", f"{commit}^..HEAD", "--", claims_file).split() if commit else []
                out.append({"claim": e["id"], "words": words, "commit": commit, "date": date,
                            "before": _reference_verdict(last, study, e["id"], reference),
                            "after": _reference_verdict(nxt[0] if nxt else None, study, e["id"], reference)})  # fmt: skip
        before = after
    return out


def history(config_path: str = "config/config.yaml", reference: str = "reference") -> tuple[dict[str, dict], str]:
    """The reference's registrations (study -> registration: its claims when its runs were first made,
    ``first_reference_commit``) and REGISTRATION.md: every change of their tests since, with the
    reference's verdict before and after it."""
    regs, found = {}, []
    for name in config_at(None, config_path).studies:
        since = first_reference_commit(name, reference)
        if since is None:
            continue
        regs[name] = from_commit(since, config_path)[name] | {"source": f"{config_path} at {since[:7]}, the first commit "
                                                                         f"whose {reference}/{name}/ holds these runs"}  # fmt: skip
        found += [ev | {"study": name} for ev in events(name, since, config_path, reference)]
    return regs, markdown(regs, found, config_path, reference)


def _where(ev: dict) -> str:
    return f"`{ev['commit'][:7]}` ({ev['date']})" if ev["commit"] else "the working tree (this round)"


def _verdict(ev: dict, side: str) -> str:
    if side == "after" and not ev["commit"]:
        return "not judged yet"
    verdict, commit = ev.get(side, ("", ""))
    return f"{verdict} ({commit})" if verdict else "none"


def markdown(regs: dict, found: list[dict], config_path: str = "config/config.yaml", reference: str = "reference") -> str:
    """REGISTRATION.md from the reference's registrations and the changes since (``events``, with their study)."""
    claims = [ev for ev in found if ev["claim"] is not None]
    moved = [ev for ev in claims if any(w.split(" ", 1)[0] in ("estimand", "test") for w in ev["words"])]
    since = "; ".join(f"{name}: `{reg['commit'][:7]}` ({reg['registered_at'][:10]})" for name, reg in regs.items())
    lines = ["# The reference's claims, as registered", "",
             "Written by `.venv/bin/python -m ablation.registration history` from git history: edit that function, not this file.", "",
             f"Each `{reference}/<study>/registration.json` holds the study's claims as `{config_path}` stated them at the "
             f"first commit whose `{reference}/<study>/` holds runs of today's reference: the claims its runs were first "
             f"judged with ({since}). A run on these runs names in its claims table each change since "
             "(`changed_after_runs`) and the registered claim's verdict (`verdict_registered`); docs/registration.md "
             "says how.", ""]  # fmt: skip
    for label, group in (("in git history", [ev for ev in moved if ev["commit"]]),
                         ("again in the working tree (this round, not yet committed)",
                          [ev for ev in moved if not ev["commit"]])):  # fmt: skip
        if not group:
            continue
        said = "; ".join(f"`{ev['claim']}` ({', '.join(w for w in ev['words'] if w.split(' ', 1)[0] in ('estimand', 'test'))}"
                         + (f", {_where(ev)})" if ev["commit"] else ")") for ev in group)  # fmt: skip
        # A verdict turned only where the reference judged the claim on both sides of the change.
        turned = [ev for ev in group if ev["commit"] and all(ev.get(side, ("",))[0] for side in ("before", "after"))
                  and ev["before"][0] != ev["after"][0]]  # fmt: skip
        lines += [f"Estimands and their tests changed after the reference's runs existed, {label}: {said}."
                  + (f" The reference's verdict changed with {len(turned)} of them: " + "; ".join(
                      f"`{ev['claim']}` {ev['before'][0]} → {ev['after'][0]}" for ev in turned) + "." if turned else ""), ""]  # fmt: skip
    rows = [f"| {ev['study']} | `{ev['claim']}` | {'; '.join(ev['words'])} | {_where(ev)} | {_verdict(ev, 'before')} | "
            f"{_verdict(ev, 'after')} |" for ev in claims]  # fmt: skip
    design = [f"| {ev['study']} | {'; '.join(ev['words'])} | {_where(ev)} |" for ev in found if ev["claim"] is None]
    lines += ["## The claims' tests, changed after the reference's runs existed", "",
              "Each change one step at a time, with the verdict the reference's claims table read just before and "
              "after it, under the code of that commit. A claims table's `changed_after_runs` names the net change "
              "from the registration to today's config, and `verdict_registered` is today's code judging the "
              "registered claim; the two may differ from the verdicts here, where the code changed too.", "",
              "| study | claim | change | where | the reference's verdict before | after |", "| --- | --- | --- | --- | --- | --- |",
              *(rows or ["| | | none | | | |"]), "",
              "## The studies' seeds and adaptive rounds, changed after the reference's runs existed", "",
              "| study | change | where |", "| --- | --- | --- |", *(design or ["| | none | |"]), ""]  # fmt: skip
    return "\n".join(lines)


# --------------------------------------------------------------------------- the command line


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.registration", description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="command", required=True)
    r = sub.add_parser("register", help="register the studies' claims anew (make register)")
    r.add_argument("config")
    r.add_argument("--studies", default="", help="a comma list of study names (default: every study)")
    h = sub.add_parser("history", help="write the reference's registrations and REGISTRATION.md from git history")
    h.add_argument("--config", default="config/config.yaml", help="the config, relative to the repository")
    h.add_argument("--reference", default="reference", help="the reference folder, relative to the repository")
    args = ap.parse_args(argv)
    try:
        if args.command == "history":
            regs, text = history(args.config, args.reference)
            for name, reg in regs.items():
                io.write_json(REPO_DIR / args.reference / name / FILE, reg)
                print(f"wrote {args.reference}/{name}/{FILE} ({reg['source']})")
            io.write_text(REPO_DIR / args.reference / "REGISTRATION.md", text)
            print(f"wrote {args.reference}/REGISTRATION.md")
            return 0
        cfg = load_config(args.config)
        chosen = names(cfg, args.studies)
        results = Path(cfg.outdir) / "results"
        for path in write(cfg, results, chosen, force=True):
            reg = load(path)
            print(f"registered {reg['study']}: {len(reg['claims'])} claim(s), {reg['when']} "
                  f"({reg['runs_existed']} of its {reg['runs']} runs in the store) -> {path}")  # fmt: skip
    except ConfigError as exc:
        print(f"config error: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
