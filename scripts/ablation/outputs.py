"""The figures and tables of a study, each declared once: its name, its file (under
results/<study>/), its caption and, for tables, the meaning of every column (``GLOSSARY``). The rules
(workflow/rules/plots.smk, report.smk), the plots (ablation.plots draws each figure with the function
of its name), the HTML report, Snakemake's report captions (workflow/report/*.rst) and the column
glossary of results/README.md (``python -m ablation.outputs --glossary``) all read these declarations.

Only the standard library is imported here: the Snakefile imports this module on every run.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass


@dataclass(frozen=True)
class Output:
    name: str
    file: str  # relative to results/<study>/
    caption: str
    title: str = ""  # a short heading
    collapsed: bool = False  # the HTML report shows it folded (a click away), to keep the page short
    by_level: bool = True  # a table with a row (or column) per factor level; False: one per study, pair or claim


FIGURES = (
    Output(
        "accuracy_by_factor", "figures/accuracy_by_factor.png",
        "Test accuracy against each factor, coloured by the study's first factor (or its plot hint): every run "
        "is a dot, the diamonds are the means of the runs at each level with bootstrap intervals at the "
        "configured confidence; the dashed line is chance (50 %, where every run's test set holds swap twins).",
    ),
    Output(
        "interactions", "figures/interactions.png",
        "Mean test accuracy for every pair of factors, averaged over the other factors (only the runs that the "
        "study's plot hint `where` selects, if it has one); the colour scale spans the range of the means shown.",
    ),
    Output(
        "learning_curves", "figures/learning_curves.png",
        "Training loss and accuracy per epoch, grouped by the study's first factor and split into rows by its "
        "second (or by its plot hint): each run thin (in a group of more than 100 runs: the band from the 5th to "
        "the 95th percentile of its runs), each group's mean bold.",
        "learning curves", True,
    ),
    Output(
        "grad_norms_init", "figures/grad_norms_init.png",
        "Per-layer gradient norms at step 0, drawn like the learning curves: post-norm is expected to grow "
        "toward the output, pre-norm to stay flat (Xiong et al. 2020, Fig. 3).",
    ),
    Output(
        "length_generalization", "figures/length_generalization.png",
        "Each metric of the study's evaluations against the test length, one panel per metric and combination of "
        "the factors other than the study's first (or its plot hint `hue`), which colours: every seed's run is a "
        "thin line, each level's mean over seeds bold; the lengths the runs trained at are shaded.",
        "metrics by test length",
    ),
    Output(
        "where_it_holds", "figures/where_it_holds.png",
        "Where each claim with robust_over holds: every seed's value in each universe (a combination of the levels of "
        "the settings it names), green where it meets the claim's per-seed condition, red where not; the shaded band is "
        "what the claim asks of a seed. A figure per study; the scope table gives each universe's verdict.",
        "each seed in each universe", True,
    ),
    Output(
        "specification_curve", "figures/specification_curve.png",
        "A specification curve (Simonsohn et al. 2020) of each claim with robust_over: every universe (and cell the "
        "claim is judged in) as a dot at its mean over seeds with its interval at the configured confidence "
        "(Anderson's, valid for any bounded metric; a bootstrap for slopes), sorted by that mean; green inside the "
        "claim's band (shaded grey), red outside; the yellow column is the study's own settings. Under it the settings "
        "panel: a row per setting, a mark at each specification's level. The title says how many universes keep the "
        "claim's verdict (each universe's verdict as the family's one procedure reaches it) and which settings change it.",
        "specification curve",
    ),
)  # fmt: skip

TABLES = (
    Output(
        "cells", "tables/cells.csv",
        "Test accuracy per cell (one cell per combination of factor values): mean, std, min and max over seeds, "
        "the interval of the mean over seeds (ci_lo, ci_hi, ci_method), a descriptive bootstrap "
        "over seeds (boot_lo, boot_hi) and a Wilson interval on the pooled test counts (testset_lo, testset_hi: "
        "test-set sampling only, not an interval of the mean over seeds).",
        "Test accuracy per cell",
    ),
    Output(
        "main_effects", "tables/main_effects.csv",
        "Factors ranked by how much they move test accuracy: the share of variance each explains (eta_sq) and "
        "the spread of its marginal means with an interval over seeds.",
        "Which factors matter",
    ),
    Output(
        "stability", "tables/stability.csv",
        "Training stability per cell: the fraction of runs that converged (final training accuracy at least the "
        "configured threshold) and the fraction that diverged (non-finite loss), each with a Clopper-Pearson "
        "interval.",
        "Training stability",
    ),
    Output(
        "comparisons", "tables/comparisons.csv",
        "Paired comparisons between the levels of each factor: runs paired on seed and every other factor, "
        "averaged within seed (n_seeds is the n), the mean seed difference with its interval over seeds, a "
        "sign-flip test Holm-corrected over the study, the smallest reachable p-value and the minimum detectable "
        "effect.",
        "Paired comparisons",
    ),
    Output(
        "seed_variance", "tables/seed_variance.csv",
        "The seeds' share of the variance: a mixed model with the factors as fixed effects and the seed as a "
        "random intercept; icc, and n_eff, the number of independent runs the study is worth.",
        "The seeds' share of the variance", collapsed=True, by_level=False,
    ),
    Output(
        "interaction_effects", "tables/interactions.csv",
        "Two-factor interactions of test accuracy: for each pair of factors, the share of variance the "
        "interaction explains beyond the two main effects, and the spread of one factor's means at each level "
        "of the other.",
        "Two-factor interactions", collapsed=True, by_level=False,
    ),
    Output(
        "summary", "summary.csv",
        "One row per training run of the study: its settings, status (ok or diverged), final training loss and "
        "accuracy, test counts and accuracy, training time and the sha256 of its final parameters.",
        "Runs",
    ),
    Output(
        "evaluations", "evaluations.csv",
        "One row per run, metric and test length of the study's evaluations (its `eval_lengths` and each run's "
        "trained lengths), from the run's stored weights: the value, the counts it is the share of, and whether "
        "the run trained at that length.",
        "Evaluations by test length", by_level=False,
    ),
    Output(
        "published", "tables/published.csv",
        "The study beside a published result (its `published` block; no rows without one): per level of the block's "
        "factor, the mean over seeds here of the block's metric at its lengths (each seed's runs of the level averaged "
        "over those lengths first), the seeds' lowest and highest value and how many seeds, the published number, and "
        "both ranks (1 = highest) among the published levels.",
        "Against the published results", by_level=False,
    ),
    Output(
        "claims", "tables/claims.csv",
        "The study's claims (from the config), each with its verdict (SUPPORTED, CONTRADICTED or INCONCLUSIVE), "
        "what the seeds show in words (how many met the claim's per-seed condition, the test and its p), the share "
        "of seeds that met it with its exact interval, its one-sided p-value and the Holm-adjusted p-value over its "
        "family (the study's claims by default; exact claims, checked on every run's twin certificate, have none), "
        "and the share of leave-one-seed-out evaluations that repeat the verdict (robustness); for a claim with "
        "robust_over, its scope (ROBUST, LIMITED or UNSETTLED) and where it holds.",
        "Claims", by_level=False,
    ),
    Output(
        "scope", "tables/scope.csv",
        "Where each claim with robust_over holds: one row per universe (a combination of the levels of the settings "
        "it names; own: the study's own), the verdict the family's procedure reaches there (the scope's: ROBUST's or "
        "LIMITED's), its p-values, seeds, share of seeds meeting the claim, leave-one-seed-out robustness and, where "
        "it is open, why.",
        "Where it holds", by_level=False,  # the report shows it under "Where it holds", per scoped claim
    ),
)  # fmt: skip

# An adaptive study's own tables (``adaptive:`` in the config; rule adaptive_tables, ablation.adaptive).
ADAPTIVE_TABLES = (
    Output(
        "adaptive_rounds", "tables/adaptive_rounds.csv",
        "Every round of the adaptive study: each claim's seeds so far, its anytime-valid p-values (p_sup, p_con; "
        "p_family: Holm-adjusted over the claim's family), verdict, state (open, resolved, fragile, max_seeds, "
        "unreachable or fixed design) and the seeds it asked for next; a claim's last row says why it stopped.",
        "Adaptive rounds",
    ),
    Output(
        "adaptive_sequences", "tables/adaptive_sequences.csv",
        "The anytime-valid confidence sequence of each claim's cells after every seed (cs_lo, cs_hi), beside the "
        "running mean and the claim's decision bounds (bound_lo, bound_hi).",
        "Confidence sequences",
    ),
    Output(
        "adaptive_cost", "tables/adaptive_cost.csv",
        "Runs trained and training seconds spent by the rounds, against every cell at max_seeds seeds (estimated "
        "from each cell's mean seconds per run).",
        "Training cost of the rounds",
    ),
)  # fmt: skip

RUN_METRICS = {"test_acc": (0.0, 1.0), "converged": (0.0, 1.0), "final_train_acc": (0.0, 1.0)}
"""The metrics a claim reads from a study's summary.csv (one value per run), with their ranges: the test
accuracy at the training length, convergence (0/1) and the final training accuracy. Any other metric a
claim names is one its task declares (``ablation.data``), read from the study's evaluations.csv."""

ROBUST = 0.8
"""A claim's verdict that fewer than this share of leave-one-seed-out evaluations repeat is fragile
(ablation.claims decides it, the report and the glossary say it)."""

# The columns of a run's learning curve and initial gradient norms (results/runs/<hash>/curve.csv,
# init_grads.csv): ablation.train writes them, ablation.aggregate collects them into curves.csv and
# init_grads.csv, keyed by the run.
CURVE_COLUMNS = ("epoch", "lr", "train_loss", "train_acc", "grad_norm")
INIT_GRAD_COLUMNS = ("layer", "grad_norm")
EVALUATION_COLUMNS = ("hash", "metric", "length", "value", "correct", "total", "trained")
"""The columns of a run's evaluations (results/runs/<hash>/evaluations/<lengths>.csv): ablation.evaluate
writes them, ablation.aggregate collects them into evaluations.csv, keyed by the run."""
CERTIFICATE_COLUMNS = ("twin_logit_gap", "twin_pairs_differ")
"""The twin certificate a run records at training time (ablation.train); runs trained before it
have none, and their summary rows leave these empty."""

VERIFY = Output(
    "verify", "verify.csv",
    "Runs re-trained by `make verify` in a scratch folder and compared bit for bit with the originals (metrics "
    "but timing, final parameters' sha256, learning curve, initial gradient norms).",
    "Reproducibility",
)  # fmt: skip

GLOSSARY = {
    # runs (summary.csv, reference/)
    "run_id": "The run's name: its factor values and seed.",
    "seed": "The experimental unit: it fixes the data and the initialisation of every cell it runs in.",
    "status": "ok, or diverged (a non-finite training loss).",
    "test_acc": "The task's main metric on its test set at seq_len (0-1; shown as %): the order task's accuracy on "
    "the swap-paired test set (50 % is chance); a copy task's exact match under greedy decoding.",
    "final_train_acc": "Training accuracy after the last epoch (0-1): labels right, or sequences whose every target "
    "token is the most likely one.",
    "params_sha256": "sha256 of the final parameters: equal hashes mean bit-identical models.",
    "twin_logit_gap": "The twin certificate: the largest absolute difference between the logit of a test sequence "
    "and that of its twin (the same sequence with A and B swapped); 0 up to float rounding (at most 1e-3) for a model "
    "that cannot see order. not a number when the test logits are not finite; empty for a run whose metrics.csv has none.",
    "twin_pairs_differ": "The twin certificate: how many twin pairs the model predicts differently, a count (0 for a "
    "model that cannot see order, whose accuracy is then exactly 0.5); not a number or empty where twin_logit_gap is.",
    "hash": "The run's folder in the run store (results/runs/<hash>/): a hash of all its settings.",
    "epochs_run": "Epochs trained (fewer than configured when the run diverged).",
    "final_train_loss": "Training loss after the last epoch.",
    "test_correct": "Test sequences right (classified correctly; copied exactly).",
    "test_total": "Test sequences.",
    "train_seconds": "Wall-clock seconds of training (not compared when runs are checked for bit-identity).",
    "threads": "Torch threads the run trained with (part of what makes it bit-identical).",
    "device_used": "The device the run trained on (cpu or cuda).",
    # evaluations (evaluations.csv)
    "metric": "The metric a task declares (accuracy; exact_match, token_accuracy): a share of the test set, 0-1.",
    "length": "The test length: a sequence of that length (the order task's sequence length; a copy task's n tokens "
    "to copy, which it reads and writes in 2 n + 2 tokens, 2 n + 3 with the anchor's task token at position 0).",
    "value": "The metric's value at that length: correct / total.",
    "correct": "Test sequences (or, for token_accuracy, answer tokens) scored right; not a number when the model's "
    "outputs are not finite.",
    "total": "Test sequences (or answer tokens) scored: the metric's resolution is one in total.",
    "trained": "Whether the run trained at that length (a copy task trains at 1 to seq_len, the order task at seq_len).",
    # against a published result (tables/published.csv)
    "level": "A level of the published block's factor.",
    "here_mean": "Mean over seeds here of the block's metric at its lengths (each seed's runs averaged over them first).",
    "here_seed_min": "The lowest seed's value here (the seed range's lower end).",
    "here_seed_max": "The highest seed's value here.",
    "here_seeds": "Seeds with a run of that level here.",
    "published": "The published number (empty: not published).",
    "here_rank": "Rank of here_mean among the published levels (1 = highest; ties share the lower rank).",
    "published_rank": "Rank of the published number (1 = highest).",
    # learning curves and initial gradient norms (curves.csv, init_grads.csv)
    "epoch": "A pass over the training set (full-batch: one step; with batch_size, one step per batch); in curves.csv, "
    "lr is the learning rate in it.",
    "train_loss": "Training loss at that epoch (with batch_size: the mean over its batches).",
    "train_acc": "Training accuracy at that epoch (0-1), as final_train_acc.",
    "grad_norm": "Gradient norm: of all parameters at the epoch's last step (curves.csv), of one layer at step 0 "
    "(init_grads.csv).",
    "layer": "Layer index, 0 next to the input.",
    # cells
    "n": "How many units the row rests on: runs in cells and stability, seeds in claims and marginal means.",
    "n_ok": "Runs that finished without diverging.",
    "n_diverged": "Runs whose training loss became non-finite.",
    "n_imputed": "Diverged runs without a test accuracy, counted at chance (50 %).",
    "mean": "Mean test accuracy over the cell's runs (0-1; shown as %).",
    "std": "Standard deviation of test accuracy over the cell's runs (accuracy, 0-1).",
    "min": "Lowest test accuracy of the cell's runs.",
    "max": "Highest test accuracy of the cell's runs.",
    "boot_lo": "Lower end of a bootstrap interval over seeds; descriptive only (too narrow at a few seeds).",
    "boot_hi": "Upper end of the descriptive bootstrap interval over seeds.",
    "boot_method": ("How the descriptive interval was computed (BCa bootstrap: the percentile bootstrap corrected for bias and "
                    "skew, bias-corrected and accelerated; or t above stats.bootstrap_max_n)."),
    "ci_lo": "Lower end of the interval over seeds at the configured confidence (claims: a mean claim's t-interval "
    "where its t-test's check held, Bonferroni over an adaptive study's looks, or a test: betting claim's confidence "
    "sequence in an adaptive study; empty where the share of seeds decided).",
    "ci_hi": "Upper end of the interval over seeds at the configured confidence.",
    "ci_method": "Which interval over seeds: Clopper-Pearson (0/1 per seed), Tango's score interval (paired 0/1 per "
    "seed), Anderson's bound (all seeds equal), the skew-corrected t otherwise, or none (n < 2).",
    "pooled_correct": "Test sequences classified correctly, summed over the cell's runs.",
    "pooled_total": "Test sequences, summed over the cell's runs.",
    "testset_lo": ("Lower end of the Wilson score interval (a binomial proportion's interval from the score test) of the pooled "
                   "test counts: test-set sampling only."),
    "testset_hi": "Upper end of the Wilson interval of the pooled test counts.",
    "converged_frac": "Share of the cell's runs that converged (final training accuracy at least the threshold).",
    # stability
    "converged": "Runs that converged (final training accuracy at least stats.converged_threshold).",
    "conv_frac": "Share of runs that converged (0-1).",
    "conv_lo": "Lower end of the Clopper-Pearson interval of conv_frac.",
    "conv_hi": "Upper end of the Clopper-Pearson interval of conv_frac.",
    "diverged": "Runs that diverged (non-finite training loss).",
    "div_frac": "Share of runs that diverged (0-1).",
    "div_lo": "Lower end of the Clopper-Pearson interval of div_frac.",
    "div_hi": "Upper end of the Clopper-Pearson interval of div_frac.",
    # comparisons
    "factor": "The factor whose levels are compared (or ranked).",
    "level_a": "The first level of the comparison.",
    "level_b": "The second level; the difference is level_b minus level_a.",
    "n_pairs": "Matched runs (same seed and other factor values); not independent.",
    "n_seeds": "Seeds the interval and test rest on (the n of the comparison).",
    "mean_diff": "Mean over seeds of the test-accuracy difference level_b - level_a (percentage points when shown).",
    "n_up": "Seeds whose difference level_b - level_a is above 0 (a difference within half a test item of 0 is a tie).",
    "n_down": "Seeds whose difference is below 0.",
    "share_lo": "Lower end of the exact (Clopper-Pearson) interval of a share of seeds (comparisons: of the moving "
    "seeds that move the majority's way; claims: of the seeds meeting the claim's condition).",
    "share_hi": "Upper end of that exact interval.",
    "seed_min": "The smallest seed difference (the range over seeds, with seed_max).",
    "seed_max": "The largest seed difference.",
    "effect_size": "Cohen's d_z: the mean seed difference divided by the standard deviation of the seed differences.",
    "test": "The test: a sign-flip (permutation) test of the mean seed difference, exact at few seeds.",
    "p_value": "p-value of the test (claims: the one-sided test's for the verdict the claim points to; none for an "
    "exact claim).",
    "significant": "p_holm at most stats.alpha.",
    "min_p": "The smallest p-value the non-zero seed differences can reach; above alpha, no test can be significant.",
    "mde": "Minimum detectable effect: the difference the test detects with 80 % power at the strictest Holm level "
    "(empty when unreachable).",
    "note": "Why a row reads as it does (no pairs, one seed, significance unreachable, runs without a partner).",
    # main effects, marginal means, seed variance, interactions
    "rank": "Rank of the factor by eta_sq (1 = moves test accuracy most).",
    "eta_sq": "Share of the variance of test accuracy the factor (or interaction) explains (0-1).",
    "spread": "Largest minus smallest marginal mean of test accuracy over the factor's levels.",
    "spread_lo": "Lower end of the interval of the spread (seeds resampled jointly across cells).",
    "spread_hi": "Upper end of the interval of the spread.",
    "n_levels": "How many levels the factor has.",
    "best_level": "The level with the highest marginal mean.",
    "worst_level": "The level with the lowest marginal mean.",
    "marginal_means": "Mean test accuracy at each level, averaged over the other factors.",
    "n_runs": "Runs the model was fitted to.",
    "runs_per_seed": "Runs per seed (cells the seed runs in).",
    "var_seed": "Variance of the seed's random intercept (a mixed model with the factors as fixed effects).",
    "var_residual": "Residual variance of that mixed model.",
    "icc": "Intraclass correlation: the seed's share of the variance beyond the factors (0-1).",
    "n_eff": "Effective number of independent runs the study is worth, given icc.",
    "method": "How the seed's variance was estimated.",
    "factor_a": "First factor of the interaction.",
    "factor_b": "Second factor of the interaction.",
    "simple_spreads": "Spread of factor_a's means at each level of factor_b.",
    # claims
    "id": "The claim's id in the config.",
    "statement": "The claim in words, as the config states it.",
    "source": "Where the claim comes from (lesson, paper).",
    "kind": "The decision rule: at_value, at_least, equivalent, not_worse, better or grad_trend.",
    "cells": "The cells the claim is evaluated in.",
    "verdict": "SUPPORTED, CONTRADICTED or INCONCLUSIVE (the test over seeds does not decide at the family's level).",
    "estimand": "What the claim tests: share (the share of seeds meeting its per-seed condition), mean (the mean "
    "over seeds) or exact (every run's twin certificate).",
    "estimate": "The mean over seeds in the deciding cell, with its unit: an accuracy (%), a difference (percentage "
    "points) or a slope of log gradient norm per layer.",
    "estimate_unit": "The unit of estimate, ci_lo and ci_hi in the claims table (the report adds it; claims.csv has "
    "no such column).",
    "share": "The share of seeds in the deciding cell that met the claim's per-seed condition.",
    "family": "The claims Holm's adjustment runs over (a study, or the whole config); empty for an exact claim.",
    "evidence": "What the seeds show, in words: in the deciding cell, how many seeds met the condition, the test, "
    "its p and the Holm-adjusted p (an exact claim: the twin certificate of every run).",
    "robustness": f"Share of leave-one-seed-out evaluations that give the same verdict; below {ROBUST}: fragile.",
    "verdict_without_diverged": "The verdict with diverged runs left out (only where some diverged).",
    "registered": ("The sha256 of the claim's test as its study's registration holds it (results/<study>/registration.json, "
                   "docs/registration.md); empty for a claim added after the registration."),
    "changed_after_runs": ("What changed in the claim's test since its registration, registered value first "
                           "(\"threshold 0.97 → 0.6\"), or \"added after its runs\"; empty when unchanged."),
    "verdict_registered": "The verdict of the claim as registered, on the same runs by the same code, its family judged as registered.",
    "rule": "The claim's decision rule in words.",
    "detail": "The numbers behind the verdict, per cell.",
    "study": "The study the row belongs to.",
    # a claim's scope (robust_over: claims.csv's scope columns, tables/scope.csv)
    "scope": "Where the verdict at the study's setting holds, for a claim with robust_over (empty without it). ROBUST: "
    "the verdict holds in every universe (SUPPORTED everywhere, or CONTRADICTED everywhere), by the intersection-union "
    "test. LIMITED: the opposite verdict in some universe (Holm over the universes besides the study's own); the row "
    "names where the claim holds and where it fails. UNSETTLED: neither, or the verdict at the study's setting is "
    "open; the row names what is open and why.",
    "scope_p": "The scope's adjusted p in the family's one procedure over its claims and their scopes (a scope inherits "
    "its claim's share of alpha once the claim is decided): ROBUST's intersection-union p, or LIMITED's smallest p of a "
    "universe (Holm over the other universes), whichever is smaller.",
    "scope_detail": "Where the claim holds, where it fails and where it is not yet decided; for an open universe the "
    "reason in one sentence (every seed tied, no further seeds could decide it within max_seeds, or how many would).",
    "universe": "A combination of levels of the settings a claim's robust_over names (lr=0.003).",
    "own": "True for the study's own universe (its runs are the study's).",
    "sentence": "The verdict in one sentence: what the seeds show, the verdict and its p (the report's verdict row).",
    # a scope's seeds (tables/scope_seeds.csv): one row per claim, universe, cell and seed
    "lo": "The seed's value in the cell (its lower end when a run diverged and the value is only known to lie in [lo, hi]).",
    "hi": "The upper end of the seed's value (equal to lo unless a run diverged).",
    "met": "True when the seed meets the claim's per-seed condition (surely: for every value in [lo, hi]).",
    "band_lo": "The lower end of what the claim asks of one seed's value (its condition).",
    "band_hi": "The upper end of what the claim asks of one seed's value; empty when unbounded.",
    "p_holm": "p-value Holm-adjusted (comparisons: over the study's comparisons; claims: in the family's one procedure "
    "over its claims and their scopes, Holm's step-down without scopes; scope: the universe's adjusted p there).",
    "why": "For a universe not yet decided: why, in one sentence (every seed tied; no further seeds could decide it "
    "within max_seeds, so it gets none; or how many would).",
    # an adaptive study's tables (ADAPTIVE_TABLES)
    "round": "The adaptive round: 1 after the study's own seeds, then one per batch of further seeds.",
    "inference": "anytime-valid (betting e-process), or fixed design for a kind without a bounded statistic.",
    "p_sup": "Anytime-valid p-value for SUPPORTED (1 / the largest betting capital so far).",
    "p_con": "Anytime-valid p-value for CONTRADICTED (1 / the largest betting capital so far).",
    "p_family": "The smaller p, adjusted in the family's one procedure on the p-values so far (the claims of a config-wide "
    "family this round cannot see count as p = 1): the round's verdict needs it <= alpha.",
    "state": "open (gets more seeds), resolved, fragile (decided, but with robustness below 0.8: fewer than 0.8 of its leave-one-seed-out verdicts agree; gets more seeds), max_seeds, unreachable (no further seeds could decide it), "
    "fixed design, or exact (checked on every run, no rounds).",
    "next_seeds": "The seeds the claim asked for in the next round (none once it stopped).",
    "scope_next": "For a claim with robust_over whose verdict is reached and whose scope is UNSETTLED: the weakest "
    "undecided universe that further seeds could still decide, and the seeds the next round trains there (empty otherwise).",
    "scope_why": "The universes that get no more seeds because no further seeds within max_seeds could decide them, and why.",
    "cell": "The combination of the other factors a claim's values come from.",
    "cs_lo": "Lower end of the anytime-valid confidence sequence after n_seeds seeds.",
    "cs_hi": "Upper end of the anytime-valid confidence sequence after n_seeds seeds.",
    "bound_lo": "The claim's decision bound (lower end of its band; a one-sided kind has one bound).",
    "bound_hi": "The claim's decision bound (upper end of its band).",
    "runs_trained": "Runs the adaptive study trained, over all rounds.",
    "runs_at_max_seeds": "Runs every cell at max_seeds seeds would take.",
    "train_seconds_at_max_seeds": "Training seconds every cell at max_seeds would take (each cell's mean per run).",
    "train_seconds_saved": "train_seconds_at_max_seeds minus the training seconds the rounds spent.",
    # checks, verify
    "check": "The implementation check: our module against PyTorch's, with copied weights.",
    "max_abs_diff": "Largest absolute difference between the two outputs.",
    "tolerance": "The largest difference that passes.",
    "lesson_value": "The difference the lesson reported.",
    "identical": "True when the re-run equals the original bit for bit.",
    "mismatches": "What differs between the original and the re-run.",
    "original_sha256": "params_sha256 of the original run.",
    "rerun_sha256": "params_sha256 of the re-run.",
}


def table(name: str) -> Output:
    """The table declared as ``name`` (a study's or an adaptive study's): where its file is, what it says."""
    return next(t for t in (*TABLES, *ADAPTIVE_TABLES) if t.name == name)


def full_glossary() -> dict[str, str]:
    """GLOSSARY, then every run setting (a column of summary.csv and of the per-cell tables) with its
    description from the config schema, where it is declared."""
    from .settings import setting_specs  # yaml: not at import time (the Snakefile imports this module)

    settings = {name: f"Setting: {spec.get('description', '')}" for name, spec in setting_specs().items()}
    return GLOSSARY | {k: v for k, v in settings.items() if k not in GLOSSARY}


def glossary_markdown() -> str:
    """The full glossary as a Markdown table (results/README.md carries it)."""
    lines = ["| column | meaning |", "| --- | --- |"]
    lines += [f"| `{name}` | {text.replace('|', '/')} |" for name, text in full_glossary().items()]
    return "\n".join(lines)


GLOSSARY_BEGIN = "<!-- column glossary: written by `python -m ablation.outputs --update results/README.md` -->"
GLOSSARY_END = "<!-- end of column glossary -->"


def update_readme(path) -> bool:
    """Rewrite the glossary between GLOSSARY_BEGIN and GLOSSARY_END in ``path``; True if it changed."""
    from pathlib import Path

    text = Path(path).read_text(encoding="utf-8")
    if GLOSSARY_BEGIN not in text or GLOSSARY_END not in text:
        raise ValueError(f"{path}: no glossary markers ({GLOSSARY_BEGIN} ... {GLOSSARY_END})")
    head, rest = text.split(GLOSSARY_BEGIN, 1)
    _, tail = rest.split(GLOSSARY_END, 1)
    new = f"{head}{GLOSSARY_BEGIN}\n{glossary_markdown()}\n{GLOSSARY_END}{tail}"
    if new != text:
        Path(path).write_text(new, encoding="utf-8")
    return new != text


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m ablation.outputs", description="The column glossary.")
    ap.add_argument("--glossary", action="store_true", help="print the glossary as a Markdown table")
    ap.add_argument("--update", metavar="README", help="rewrite the glossary section of this Markdown file")
    args = ap.parse_args(argv)
    if args.update:
        try:
            changed = update_readme(args.update)
        except (OSError, ValueError) as exc:
            ap.error(str(exc))
        print(f"{args.update}: glossary {'updated' if changed else 'already up to date'}")
    elif args.glossary:
        print(glossary_markdown())
    else:
        ap.error("nothing to do: give --glossary or --update README")
    return 0


if __name__ == "__main__":
    sys.exit(main())
