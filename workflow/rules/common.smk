# Helpers shared by the rules: the validated config, the runs of each study, their paths.
import glob
import json
import os
import re
import shlex
import sys

from ablation import adaptive
from ablation import config as ablation_config
from ablation import design
from ablation.config import family_size
from ablation import outputs
from ablation import progress
from ablation import provenance
from ablation import registration
from ablation import selection
from ablation import store as run_store
from ablation.settings import cost_estimate

try:
    CFG = ablation_config.validate(config)
except ablation_config.ConfigError as exc:
    sys.exit(f"config error: {exc}")

STUDIES = CFG.studies
RUNS = {
    name: {run.run_id: run for run in study.runs()} for name, study in STUDIES.items()
}
# One training job per distinct settings: studies and configs share a run of the store.
RUN_BY_HASH = {run.hash: run for runs in RUNS.values() for run in runs.values()}
# Adaptive studies (ablation.adaptive): name -> {max_seeds, batch}; every run their rounds may
# plan is a run of the config (its train job exists; only the rounds ask for it).
ADAPTIVE = {}
for _name, _study in STUDIES.items():
    _block = design.adaptive_block(CFG.raw["studies"][_name])
    if _block is not None:
        try:
            adaptive.check(_study, _block)
        except ValueError as exc:
            sys.exit(f"config error: {exc}")
        ADAPTIVE[_name] = _block
    for _run in design.every_run(_study, _block):
        RUN_BY_HASH.setdefault(_run.hash, _run)
# Studies whose claims have a scope (robust_over, ablation.scope): name -> the runs the first round
# trains in the other universes (an adaptive study's rounds add theirs).
SCOPED = {
    name: design.scope_runs(study, study.seeds)
    for name, study in sorted(STUDIES.items())
    if design.scope_settings(study)
}
ANY_CUDA = any(run.settings.device == "cuda" for run in RUN_BY_HASH.values())
STORE = run_store.STORE.as_posix()
# The screen of `make reproduce` (ablation.progress) names runs by study and readable run id.
progress.declare(
    RUN_BY_HASH,
    first=[run.hash for runs in RUNS.values() for run in runs.values()]
    + [run.hash for runs in SCOPED.values() for run in runs],
    store=STORE,
)
# This config's own outputs: a second config with another outdir never overwrites them.
RESULTS = os.path.normpath(os.path.join(CFG.outdir, "results"))
REPORTS = os.path.normpath(os.path.join(CFG.outdir, "reports"))


envvars:
    "PATH",


# Light jobs run on the submitting host under a cluster executor (workflow/profiles/slurm).
localrules:
    index,
    summarize,
    evaluations,
    published_table,
    analyze,
    claims,
    scope_index,
    scope_summarize,
    scope_evaluations,
    figures,
    positional_encoding_figure,
    implementation_checks,
    report,
    selected_report,


# Jobs run `python`: the interpreter running Snakemake (the project's .venv), also on cluster nodes.
os.environ["PATH"] = os.pathsep.join(
    [os.path.dirname(sys.executable), os.environ["PATH"]]
)


wildcard_constraints:
    study="|".join(STUDIES),
    hash=run_store.HASH_PATTERN,


def run_of(wildcards):
    """The Run (settings included) that a train job's hash names."""
    try:
        return RUN_BY_HASH[wildcards.hash]
    except KeyError:
        raise ValueError(
            f"{STORE}/{wildcards.hash} is not a run of the config"
        ) from None


def run_settings_json(wildcards):
    return run_of(wildcards).settings.to_json()


def train_gpu(wildcards):
    """1 GPU for a run on CUDA (a cluster executor then asks for it), else none."""
    return int(run_of(wildcards).settings.device == "cuda")


def train_priority(wildcards):
    """Costliest training first (ablation.settings.cost_estimate): a short idle tail."""
    return cost_estimate(run_of(wildcards).settings)


def adaptive_rounds(study):
    """The round files of an adaptive study, up to the first that plans no run (checkpoints)."""
    paths = []
    while True:
        paths.append(
            checkpoints.adaptive_round.get(
                study=study, round=str(len(paths) + 1)
            ).output[0]
        )
        if not adaptive.read_round_runs(paths[-1:]) and not adaptive.read_round_runs(
            paths[-1:], "new_scope_runs"
        ):
            return paths


def study_rounds(wildcards):
    """An adaptive study's round files (none for a fixed design): its index lists their runs."""
    return adaptive_rounds(wildcards.study) if wildcards.study in ADAPTIVE else []


def index_rounds_arg(wildcards, input):
    return (
        " ".join(["--rounds", *map(shlex.quote, input.rounds)]) if input.rounds else ""
    )


def study_hashes(study):
    """Every run of the study: its seeds, and an adaptive study's rounds."""
    hashes = [run.hash for run in RUNS[study].values()]
    if study in ADAPTIVE:
        hashes += [
            row["hash"] for row in adaptive.read_round_runs(adaptive_rounds(study))
        ]
    return hashes


def study_run_files(wildcards):
    """Every run of the study, in the run store, by the file that marks it complete (metrics.csv)."""
    return [f"{STORE}/{h}/metrics.csv" for h in study_hashes(wildcards.study)]


def adaptive_round_metrics(wildcards):
    """The runs an adaptive round evaluates: the study's seeds and every earlier round's runs."""
    k = int(wildcards.round)
    earlier = [
        checkpoints.adaptive_round.get(study=wildcards.study, round=str(j)).output[0]
        for j in range(1, k)
    ]
    hashes = [run.hash for run in RUNS[wildcards.study].values()]
    hashes += [row["hash"] for row in adaptive.read_round_runs(earlier)]
    hashes += [run.hash for run in SCOPED.get(wildcards.study, [])]
    hashes += [
        row["hash"] for row in adaptive.read_round_runs(earlier, "new_scope_runs")
    ]
    return [f"{STORE}/{h}/metrics.csv" for h in hashes]


def adaptive_previous_rounds(wildcards):
    return [
        f"{RESULTS}/{wildcards.study}/adaptive/round_{j}.json"
        for j in range(1, int(wildcards.round))
    ]


def adaptive_spec_json(wildcards):
    """What an adaptive round depends on beyond the results: the study, its claims, the stats
    settings and its adaptive block."""
    return json.dumps(
        {
            "study": STUDIES[wildcards.study].to_dict(),
            "stats": CFG.stats,
            "adaptive": ADAPTIVE[wildcards.study],
            "family_size": family_size(
                {name: study.claims for name, study in STUDIES.items()},
                wildcards.study,
                CFG.stats.get("family", "study"),
            ),
        },
        sort_keys=True,
    )


def study_json(wildcards):
    """What defines a study's runs (fixed settings, factors, seeds): a change rewrites its index."""
    return run_store.study_json(STUDIES[wildcards.study])


def published_json(wildcards):
    """A study's published block (null: none) and the levels of its factor, in the study's order."""
    block = CFG.raw["studies"][wildcards.study].get("published")
    levels = STUDIES[wildcards.study].factors[block["factor"]] if block else []
    return json.dumps({"published": block, "levels": levels}, sort_keys=True)


def analysis_json(wildcards):
    """What the statistics of a study depend on beyond its summary: factors, stats settings."""
    study = STUDIES[wildcards.study]
    return json.dumps(
        {"factors": study.factor_names, "stats": CFG.stats}, sort_keys=True
    )


def claims_studies(wildcards):
    """The studies whose results a study's claims read, in name order: the study alone when each
    study is its own error family (stats.family: study), every study when the config is one
    (ablation.selection.judged_with), so one study's claims table trains that study's runs only.
    """
    return sorted(selection.judged_with(CFG, [wildcards.study]))


def family_files(wildcards, file):
    """``file`` of each study whose results a study's claims read (claims_studies), in the order
    family_json lists them."""
    return [f"{RESULTS}/{name}/{file}" for name in claims_studies(wildcards)]


def family_summaries(wildcards):
    return family_files(wildcards, "summary.csv")


def family_init_grads(wildcards):
    return family_files(wildcards, "init_grads.csv")


def family_evaluations(wildcards):
    return family_files(wildcards, "evaluations.csv")


def family_json(wildcards):
    """What the claims' verdicts depend on beyond the results: the factors, claims and seeds of each
    study they read (claims_studies, in name order, as family_files lists their summaries), the stats
    settings (the error family among them) and the plugins (which may register claim kinds).
    """
    studies = {
        name: {
            "factors": STUDIES[name].factor_names,
            "claims": STUDIES[name].to_dict()["claims"],
            "seeds": STUDIES[name].seeds,
        }
        | adaptive_design(name)
        for name in claims_studies(wildcards)
    }
    return json.dumps(
        {"stats": CFG.stats, "studies": studies, "plugins": CFG.raw.get("plugins", [])},
        sort_keys=True,
    )


def adaptive_design(name):
    """An adaptive study's design for its claims (its own seeds, then rounds); {} for a fixed one."""
    if name not in ADAPTIVE:
        return {}
    return {"adaptive": {"seeds": STUDIES[name].seeds} | ADAPTIVE[name]}


def adaptive_tables():
    """The tables of every adaptive study (rule adaptive_tables)."""
    return expand(
        [f"{RESULTS}/{{study}}/{table.file}" for table in outputs.ADAPTIVE_TABLES],
        study=list(ADAPTIVE),
    )


def per_study(pattern):
    return expand(pattern, study=list(STUDIES))


def output_dir(wildcards, output):
    """The folder of a rule's first output (where the command writes its files)."""
    return os.path.dirname(output[0])


def input_dir(wildcards, input):
    """The folder of a rule's first input (the results folder the command reads)."""
    return os.path.dirname(input[0])


def config_json(wildcards):
    """The config as given: the report shows it."""
    return json.dumps(CFG.raw, default=str)


def studies_json(wildcards):
    """The studies in config order (the report's order)."""
    return json.dumps(list(STUDIES))


# A report of some studies (`make reproduce STUDY=lesson,length`, ablation.selection): its file names
# them, in the config's order, joined by selection.SEPARATOR.
SELECTION_PATTERN = "({study})(\\{sep}({study}))*".format(
    study="|".join(re.escape(name) for name in STUDIES),
    sep=selection.SEPARATOR,
)


def selected_studies(wildcards):
    """The studies a selection's report covers, in the config's order."""
    return selection.names(CFG, wildcards.selection.replace(selection.SEPARATOR, ","))


def selected_studies_json(wildcards):
    return json.dumps(selected_studies(wildcards))


def selected_results(wildcards):
    """What a selection's report reads of its studies: each study's summary, tables and figures
    (as the full report reads every study's) and an adaptive study's tables (as `rule all` asks).
    """
    files = [f"{RESULTS}/{{study}}/summary.csv"]
    files += [
        f"{RESULTS}/{{study}}/{out.file}" for out in (*outputs.TABLES, *outputs.FIGURES)
    ]
    chosen = selected_studies(wildcards)
    return expand(files, study=chosen) + expand(
        [f"{RESULTS}/{{study}}/{table.file}" for table in outputs.ADAPTIVE_TABLES],
        study=[name for name in chosen if name in ADAPTIVE],
    )


def report_command(wildcards):
    """The command that makes a report, as the report shows it: `make reproduce`, with the config
    when it is not the default and, for a report of some studies, those studies."""
    words = ["make reproduce"]
    given = [os.path.relpath(path) for path in workflow.configfiles]
    if given and given[-1] != os.path.join("config", "config.yaml"):
        words.append(f"CONFIG={given[-1]}")
    if hasattr(wildcards, "selection"):
        words.append(f"STUDY={','.join(selected_studies(wildcards))}")
    return " ".join(words)


def training_fingerprint_here(wildcards):
    """The training fingerprint of the code here (ablation.provenance): an edit of the training path
    or another torch makes the report again, so that it names the runs trained by other code.
    """
    return provenance.training_fingerprint(CFG.train_threads)


def sorted_studies_json(wildcards):
    """The studies sorted by name: what verify samples from does not depend on the config's key order."""
    return json.dumps(sorted(STUDIES))


def study_factors_json(wildcards):
    return json.dumps(STUDIES[wildcards.study].factor_names)


def study_plot_json(wildcards):
    """The study's optional plot hint (hue, facet, where): a change redraws its figures."""
    return json.dumps(
        CFG.raw["studies"][wildcards.study].get("plot", {}), sort_keys=True
    )


def figure_captions(wildcards):
    """name -> caption of every study figure (ablation.outputs), for Snakemake's report captions."""
    return {figure.name: figure.caption for figure in outputs.FIGURES}


def table_captions(wildcards):
    """name -> caption of every study table and of verify.csv (ablation.outputs), for Snakemake's
    report captions (workflow/report/<name>.rst)."""
    return {table.name: table.caption for table in (*outputs.TABLES, outputs.VERIFY)}


# The committed reference results (ablation.compare) of the working folder: this repository's, or a
# user's own where the pipeline is a module (none: the report says so).
REFERENCE = "reference"


# Each study's claims are registered before its runs exist (ablation.registration): here, when
# Snakemake reads the workflow and before any job runs, for the studies its targets make (a run of
# some studies makes no other study's folder). A registration follows the config while none of the
# study's runs is in the store and stays from its first run on; `make register` renews it.
def command_line_targets():
    """The targets on Snakemake's command line, read with Snakemake's own parser (its DAG settings
    are set only after the workflow is read); none when the workflow is read another way.
    """
    from snakemake.cli import get_argument_parser

    if "snakemake" not in os.path.basename(os.path.dirname(sys.argv[0])) + sys.argv[0]:
        return []
    try:
        args, _ = get_argument_parser().parse_known_args(sys.argv[1:])
    except SystemExit:
        return []
    return list(args.targets or [])


if workflow.is_main_process:
    registration.write(
        CFG,
        RESULTS,
        selection.from_targets(CFG, command_line_targets()),
        store=run_store.STORE,
        reference=REFERENCE,
    )


def registration_files(wildcards):
    """The registration of each study whose results a study's claims read (claims_studies), where it
    has one: `make register` rewriting it judges the claims again."""
    return [
        path
        for name in claims_studies(wildcards)
        if os.path.isfile(path := f"{RESULTS}/{name}/{registration.FILE}")
    ]


def registration_args(wildcards, input):
    """--registration STUDY=FILE for each registration the claims rule reads."""
    return " ".join(
        f"--registration {os.path.basename(os.path.dirname(path))}={shlex.quote(path)}"
        for path in input.registrations
    )


def reference_files(wildcards):
    """The committed reference's files (none when there is no reference): the report's
    reproduction check is redone when they change."""
    return sorted(glob.glob(os.path.join(REFERENCE, "*", "*")))


def study_output(name, subcategory):
    """A study's table or figure (declared in ablation.outputs), flagged for Snakemake's report and
    labelled with its study and file, so the studies' files of the same name can be told apart.
    """
    out = next(o for o in (*outputs.TABLES, *outputs.FIGURES) if o.name == name)
    caption = "study_figures" if out in outputs.FIGURES else name
    return report(
        f"{RESULTS}/{{study}}/{out.file}",
        caption=f"../report/{caption}.rst",
        category="{study}",
        subcategory=subcategory,
        labels={"study": "{study}", "file": out.file},
    )


def max_setting(name):
    """The largest value of a setting over every run of the config (a named helper per use)."""
    return max(getattr(run.settings, name) for run in RUN_BY_HASH.values())


def max_seq_len(wildcards):
    return max_setting("seq_len")


def max_d_model(wildcards):
    return max_setting("d_model")


# Evaluations (rules/evaluate.smk): a run's test lengths name its file, "1-16" or "8_16_32"
# (ablation.data.lengths_key).
LENGTHS_PATTERN = r"[0-9]+(-[0-9]+)?(_[0-9]+(-[0-9]+)?)*"


def evaluation_file(run_hash, eval_lengths):
    """A run's evaluations at a study's eval_lengths and its own trained lengths."""
    return run_store.evaluation_file(
        STORE, run_hash, RUN_BY_HASH[run_hash].settings, eval_lengths
    ).as_posix()


def study_evaluation_files(wildcards):
    """Every run's evaluations at the study's test lengths; none when it has no eval_lengths."""
    eval_lengths = STUDIES[wildcards.study].eval_lengths
    if not eval_lengths:
        return []
    return [evaluation_file(h, eval_lengths) for h in study_hashes(wildcards.study)]


def evaluate_priority(wildcards):
    """A run folder without weights trains again inside its evaluate job: then it ranks as training
    does (ablation.settings.cost_estimate); else the job is short."""
    if os.path.exists(f"{STORE}/{wildcards.hash}/weights.pt"):
        return 0
    return cost_estimate(run_of(wildcards).settings)


# Scopes (rules/scope.smk): the runs of a study's claims in their other universes, summarised beside
# the study's own; the claims rule reads them.


def scope_hashes(study):
    """Every run of the study's scope: its first round's, and an adaptive study's rounds'."""
    hashes = [run.hash for run in SCOPED[study]]
    if study in ADAPTIVE:
        rounds = adaptive_rounds(study)
        hashes += [
            row["hash"] for row in adaptive.read_round_runs(rounds, "new_scope_runs")
        ]
    return hashes


def scope_run_files(wildcards):
    """Every run of the study's scope, by the file that marks it complete (metrics.csv)."""
    return [f"{STORE}/{h}/metrics.csv" for h in scope_hashes(wildcards.study)]


def scope_evaluation_files(wildcards):
    """The scope's runs' evaluations at the study's test lengths; none when it has no eval_lengths."""
    eval_lengths = STUDIES[wildcards.study].eval_lengths
    if not eval_lengths:
        return []
    return [evaluation_file(h, eval_lengths) for h in scope_hashes(wildcards.study)]


def scope_study_json(wildcards):
    """What defines a study's scope runs: the study with its claims (their robust_over)."""
    return json.dumps(STUDIES[wildcards.study].to_dict(), sort_keys=True)


def scope_files(wildcards):
    """The scope tables of each scoped study whose results the claims rule reads (claims_studies)."""
    return [
        f"{RESULTS}/{name}/scope/{table}"
        for name in claims_studies(wildcards)
        if name in SCOPED
        for table in ("summary.csv", "init_grads.csv", "evaluations.csv")
    ]


def scope_seeds_file(wildcards):
    """A scoped study's seeds in each universe (written beside its claims): its figures draw them.
    Other studies' figures read no claims output, so a change elsewhere does not redraw them.
    """
    if wildcards.study in SCOPED:
        return f"{RESULTS}/{wildcards.study}/tables/scope_seeds.csv"
    return []


def scope_table_files(wildcards):
    """A scoped study's verdict in each universe and its claims' verdicts (written with its scope
    seeds): its specification curve names the universes that keep a claim's verdict. None for the
    other studies, as scope_seeds_file.
    """
    if wildcards.study in SCOPED:
        return {
            name: f"{RESULTS}/{wildcards.study}/{outputs.table(name).file}"
            for name in ("scope", "claims")
        }
    return {}


def scope_seeds_arg(wildcards, input):
    """--scope-seeds, --scope and --claims FILE for a scoped study; nothing for the others."""
    if not input.scope_seeds:
        return ""
    return " ".join(
        f"--{flag} {shlex.quote(path)}"
        for flag, path in (
            ("scope-seeds", input.scope_seeds),
            ("scope", input.scope),
            ("claims", input.claims),
        )
    )


def scope_args(wildcards):
    """--scope STUDY=FOLDER for each scoped study the claims read: where they find its scope tables."""
    return " ".join(
        f"--scope {name}={RESULTS}/{name}/scope"
        for name in claims_studies(wildcards)
        if name in SCOPED
    )
