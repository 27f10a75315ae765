"""Mutation testing of the modules that decide results: how many planted bugs do their unit tests kill?

    python benchmarks/mutation.py                  # the modules whose row is out of date, then mutation.md
    python benchmarks/mutation.py io data          # some modules (the others' rows are kept from mutation.json)
    python benchmarks/mutation.py --all            # every module below

A row is out of date when a file it depends on changed since its commit: the module, its tests,
tests/conftest.py, or a package module any of these imports (directly or through each other).

For each module, mutmut (pinned in requirements.txt) mutates that one file of the package and runs
the module's unit tests against each mutant (never the Snakemake smoke run: tests that start
Snakemake are deselected). Each module runs in its own scratch folder, benchmarks/work/mutation/<name>/,
a copy of the package laid out as mutmut expects (src/ablation), the tests, the configs and the
workflow; nothing is written into the checkout but benchmarks/mutation.json and mutation.md.

The score is killed / (killed + survived + timed out), with mutmut's own statuses. Surviving
mutants that are equivalent (no behaviour can tell them apart) are listed in EQUIVALENT with a
reason; mutation.md shows every other survivor as a bug the tests miss.
"""

from __future__ import annotations

import argparse
import ast
import configparser
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGE = REPO / "scripts" / "ablation"
WORK = REPO / "benchmarks" / "work" / "mutation"
JSON = REPO / "benchmarks" / "mutation.json"
MD = REPO / "benchmarks" / "mutation.md"
MUTMUT = Path(sys.executable).parent / "mutmut"
LOAD_EVERY = 30  # seconds between samples of the machine's load during a run

# The modules that decide results, with the unit tests that exercise them; -k deselects tests that run
# Snakemake or time a whole pipeline (seconds to minutes each: not unit tests).
MODULES: dict[str, dict] = {
    "io": {"tests": ["tests/test_io.py"]},
    "data": {"tests": ["tests/test_data.py", "tests/test_mutation_kills.py"]},
    "model": {"tests": ["tests/test_model.py", "tests/test_variants.py", "tests/test_checks.py",
                        "tests/test_mutation_kills.py", "tests/test_model_kills.py"]},
    "config": {"tests": ["tests/test_config_validation.py"], "deselect": "snakemake"},
    "stats": {"tests": ["tests/test_stats.py", "tests/test_holm_tables.py", "tests/test_stats_simulation.py",
                        "tests/test_stats_kills.py"], "deselect": "ten_thousand"},
    "claims": {"tests": ["tests/test_claims.py", "tests/test_claims_kills.py"]},
    # the anytime-valid statistics of adaptive studies (claims' p-values there; the rounds' stopping rule)
    "sequential": {"tests": ["tests/test_sequential.py", "tests/test_adaptive.py", "tests/test_sequential_kills.py"]},
}
GOAL = {"stats": 0.90, "claims": 0.90, "sequential": 0.90}  # statistics; the others: 0.80
DEFAULT_GOAL = 0.80

# Survivors no test can kill: mutant name -> why the mutant behaves exactly as the original. Names
# are mutmut's (function and number); they hold while the module's source is unchanged.
_UTF8 = "the same codec as 'utf-8'"
_MODE_W = "atomic_open's default mode is 'w'"
_NEWLINE = "on POSIX, text files write '\\n' as '\\n' whatever `newline` says (os.linesep)"
_FLOAT64_ONCE = "the sines and cosines are still computed in float64 and rounded once to float32 (on assignment, not by .float())"
_INT_POSITIONS = "integer positions divided by the float64 frequencies give the same float64 angles"
_RESET_INDEX = "keys has a RangeIndex: drop=False adds an 'index' column that the final column selection leaves out"
_BATCH = "the batch size only splits the same stream of draws (default_rng draws the same numbers in any split)"
_NAN_TEXT = 'float("NAN") is nan'
_WARNINGS = "the catch_warnings block ignores the RuntimeWarning whatever errstate says"
_LOCALE_UTF8 = "open()'s default is the locale's encoding, UTF-8 here (and in Python's C/POSIX locale): the same codec as 'utf-8'"
_BEST_MATCH = "only the best match, close[0], is shown: how many more get_close_matches returns changes nothing"
_FALLBACK = "unreachable with this schema: each keyword it uses has its own message above (the line serves a keyword added later)"
_STR_PATH = "pandas.read_csv (analyze.read_table) and io.write_dataframe take a str path as well as a Path"
_NEVER_N_LT_2 = "_cis runs only when every unit has at least 2 seeds (the claim's n, their minimum, is >= 2): its n < 2 defaults are never read"
_THIRD_LABEL = "decide's third label is never read: its callers compare the cells with SUPPORTED and CONTRADICTED only"
_LEVEL_FROM_COLUMN = "the value is a level read from that very column, so _mask cannot fail and its message arguments are never used"
_BISECTION = "the same p within the bisection's stated precision (2e-8 in log-alpha); only digits below it differ"
_INT_LAYERS = "layer indices are small whole numbers: their sums and products are exact as int64 and as float64"
_NA_FLOAT = "a numeric (numpy) column's missing values are NaN whatever na_value says, and np.isclose casts integers to float"
_DEFAULT_SORT = "groupby sorts by default (sort=True)"
_OK_OR_DIVERGED = "a run's status is 'ok' or 'diverged' (aggregate refuses any other), so ok is not diverged"
_EVERY_CELL_HAS_A_SEED = "every cell has a run, hence a seed: the n == 0 default is never used, and mean_cis labels n == 1 itself (NaN, NaN, 'n < 2')"
_QUANTIZED = "the values are quantized to step already: equal or a step apart, so the tie threshold step / 2 and 1e-12 / 2 agree"
_ORDER_OF_SEEDS = "the interval of a cell's seed means does not depend on their order (_split groups cells by a stable sort), up to the rounding of sums in another order"
_EMPTY_WITH_FACTORS = "only an empty summary with factors has a level list without cells, and main_effects raises ValueError there either way"
_ERRSTATE = "np.errstate only decides whether numpy warns on 0/0 or NaN there: no value differs (a RuntimeWarning may)"
_NUMERIC_INPUT = "callers pass floats (or whole numbers, which numpy's arithmetic turns into the same floats): asarray without dtype gives the same values"
_KEYS_INDEX = "every caller of _cells drops the keys' index (reset_index(drop=True)) or only counts its rows"
_NO_FACTOR_CODES = "with no factors every cell code is 0: as int or float the codes group, sort and split the runs the same (nothing indexes with them then)"
_DROPNA_NONE = "pandas reads dropna=None as false, the value given"
_NGROUP_OBSERVED = ("ngroup numbers only the groups that rows fall in, in sorted key order, whether unobserved categories "
                    "are kept (observed False, or None read as false) or not (observed=True, pandas 3's default)")
_UNIQUE_CODES = ("each level's codes are distinct (runs sharing a key are refused just above): assume_unique only skips "
                 "intersect1d's own unique pass, with the same matches and indices")
_FLOAT_VALUES = ("the values are float64 already: pair_runs passes np.asarray(values, dtype=float), paired_comparisons "
                 "run_accuracy's floats and claims metric_values' floats")
_NO_FACTOR_BOOT = "with no factors _seed_bootstrap_level_means returns an empty list (one array per factor), as the else does"
_AXIS_1 = "x is 2-D: numpy's default axis, the last, is axis 1"
_UPPER_CLIP = "1 - frac - d and frac - d are below 1 (0 <= frac <= 1, d > 0): the upper clip never acts"
_VECTORIZED = "vectorized only says how scipy calls _mean_stat (all resamples at once, or one at a time): the same resamples, the same means"
_BOTH_NAN = "BCa's two ends are NaN together (an infinite bias correction z0 makes both so): & and | pick the same samples"
_COUNT_GUARD = "k is a count: where the beta quantile is kept, k >= 1 and n - k >= 1, so a guard of 1e-300 or of 1.0 is the same"
_K_EQUALS_N = "at k = n the beta quantile with b = 1e-300 is 1.0 exactly, the value the where sets"
_CLIPPED_TO_1 = "the clip to [0, 1] on return turns the 2.0 into 1.0"
_IN_UNIT = "for counts 0 <= k <= n the interval's ends lie in [0, 1] already (k = 0 and k = n set exactly): that clip bound never acts"
_TABLE_ORDER = "the two-way table's rows in another order: the spreads regroup sorted, and ss is the same sum up to the rounding of its terms' order"
_NAN_EMPTY = "numpy gives NaN for the mean of no values and the ddof-1 sd of one value too (with a RuntimeWarning)"
_ZERO_TOTAL = "where the total is 0, correct / total is inf or NaN: unusable either way"
_QUANTIZED_BAR = "differences are quantized to step > 0, so a null |sum| ties with obs (up to float noise far below 1e-9) or lies a step or more below: any bar in (obs - step, obs - 1e-9] counts the same"
_SE_ZERO = "where sd = 0 the se is 0 too: the interval is [mean, mean] whatever the skewness"
_SAFE = "np.where keeps the flat branch where a is flat; safe only keeps the discarded branch from dividing by 0"
_BISECTION_60 = "after 60 halvings the bracket is below 2**-59: a 61st halving, or a tie exactly at a midpoint, moves the end in its last bits only"
_SIDE = "side is -1.0 or 1.0: side < 0, side <= 0 and side < 1 pick the same comparison"
_EST_SIDE = "where est == side the bisection starts and stays at [side, side]: its midpoint is side"
_METHOD_CASE = "scipy.stats.bootstrap lower-cases method: 'PERCENTILE' is 'percentile'"
_KIND_CASE = "numpy reads a sort kind by its first letter in either case: 'STABLE' is 'stable'"
_DEFAULT_METRIC = "resolution's default metric is test_acc"
_NO_BOOT_COLUMN = "the marginal table has no bootstrap column: the seed marginal_means passes on drives only main effects' spread interval"
_REML = "MixedLM.fit's default is reml=True"
_ROW_COLUMNS = "row holds exactly SEED_VARIANCE_COLUMNS' keys in that order, so the frame has those columns either way"
_ROW_KEY = "the frame takes SEED_VARIANCE_COLUMNS: a key missing from row (or misnamed) is NaN there, the value given; a fit sets its own values"
_BOOL_DUMMIES = "np.column_stack with the float intercept turns bool dummies into the same 0.0 and 1.0"
_LEXSORT = "pandas sorts on several columns with a stable lexsort and ignores kind; _order is the row order anyway, so ties keep it"
_MEAN_ZERO = "a cell whose mean difference is exactly 0 gets p = 1 from the sign-flip test (|sum| within its tolerance of 0): the else value"
_ABOVE_ONE = "only raises a p that is already >= 1 where the claim's p is min(p_sup, p_con) and p_sup <= 1: the same p, verdict and text"
_PLACEHOLDER = "the placeholder only has to differ from the verdict sought: _smallest_alpha compares with it alone"
_RUN_NOTE_METRIC = "_run_note tells only 'converged' from any other metric: a missing metric (grad_trend has none) reads the same either way"
_SEED_ORDER = "the seeds only order the leave-one-seed-out loop, whose share does not depend on the order (seeds are integers, sortable either way)"
_NO_SEEDS_LEFT = "with fewer than 2 seeds (fixed design) neither branch runs: p = min(p_sup, p_con) = 1 either way, INCONCLUSIVE with the 'p = 1' text"
_SORTED_SEEDS = "stats.seed_means returns each cell's seeds sorted and distinct: the argsort is the identity whatever its kind or dtype"
_LOO_NEVER_RAISES = ("unreachable: leaving one seed out raises only when a 'where' value or a level occurs in that seed alone, "
                     "and then the claim rests on at most one seed (n < 2: no leave-one-out)")
_N_CELLS_UNREAD = "nothing reads the n_cells entry of _claim_p's result"
_TEXTS = ("the leave-one-seed-out and the without-diverged evaluations read only the brackets and n, which _claim_p "
          "computes with the texts too (or with texts=None, falsy, without them)")  # fmt: skip
_STRICTLY_BELOW = "inside this branch one bracket lies strictly below the other, so s1 == c0 cannot happen: < and <= agree"
# stats
_POSITIVE_STEPS = "_band_area keeps only steps of height > 0 (np.where(heights > 0, ...)): without the clip at 0 a negative height adds -0.0 instead of 0.0, the same sum"
_ZERO_HEIGHT = "the heights are clipped to [0, 1], so a height that is not positive is 0: the stand-in width, 0.0 or 1.0, times 0 is 0"
EQUIVALENT: dict[str, str] = {
    "ablation.stats.x_skew_t_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.stats.x_skew_t_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.stats.x_skew_t_ci__mutmut_19": _ERRSTATE,
    "ablation.stats.x_skew_t_ci__mutmut_20": _ERRSTATE,
    "ablation.stats.x_skew_t_ci__mutmut_21": _ERRSTATE,
    "ablation.stats.x_skew_t_ci__mutmut_22": _ERRSTATE,
    "ablation.stats.x_skew_t_ci__mutmut_44": _SE_ZERO,
    "ablation.stats.x_skew_t_ci__mutmut_64": _SAFE,
    "ablation.stats.x_skew_t_ci__mutmut_70": _SAFE,
    "ablation.stats.x_tango_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.stats.x_tango_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_tango_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.stats.x_tango_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.stats.x_tango_ci__mutmut_87": _ERRSTATE,
    "ablation.stats.x_tango_ci__mutmut_88": _ERRSTATE,
    "ablation.stats.x_tango_ci__mutmut_89": _ERRSTATE,
    "ablation.stats.x_tango_ci__mutmut_90": _ERRSTATE,
    "ablation.stats.x_tango_ci__mutmut_96": _BISECTION_60,
    "ablation.stats.x_tango_ci__mutmut_110": _SIDE,
    "ablation.stats.x_tango_ci__mutmut_111": _SIDE,
    "ablation.stats.x_tango_ci__mutmut_113": _BISECTION_60,
    "ablation.stats.x_tango_ci__mutmut_129": _EST_SIDE,
    "ablation.stats.x__main_effects_core__mutmut_113": _DEFAULT_METRIC,
    "ablation.stats.x__main_effects_core__mutmut_129": _QUANTIZED,
    "ablation.stats.x__main_effects_core__mutmut_250": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_258": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_261": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_268": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_269": _LEXSORT,
    "ablation.stats.x_anderson_ci__mutmut_11": _NUMERIC_INPUT,
    "ablation.stats.x_anderson_ci__mutmut_9": _NUMERIC_INPUT,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_16": _ERRSTATE,
    "ablation.stats.x_clopper_pearson_ci__mutmut_17": _ERRSTATE,
    "ablation.stats.x_clopper_pearson_ci__mutmut_18": _ERRSTATE,
    "ablation.stats.x_clopper_pearson_ci__mutmut_19": _ERRSTATE,
    "ablation.stats.x_clopper_pearson_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.stats.x_cohen_dz__mutmut_3": _NUMERIC_INPUT,
    "ablation.stats.x_cohen_dz__mutmut_5": _NUMERIC_INPUT,
    "ablation.stats.x_converged_mask__mutmut_22": _ERRSTATE,
    "ablation.stats.x_mean_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.stats.x_mean_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.stats.x_mean_cis__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_mean_cis__mutmut_8": _NUMERIC_INPUT,
    "ablation.stats.x_quantize__mutmut_3": _NUMERIC_INPUT,
    "ablation.stats.x_quantize__mutmut_5": _NUMERIC_INPUT,
    "ablation.stats.x_run_accuracy__mutmut_24": _ERRSTATE,
    "ablation.stats.x_run_accuracy__mutmut_25": _ERRSTATE,
    "ablation.stats.x_run_accuracy__mutmut_26": _ERRSTATE,
    "ablation.stats.x_run_accuracy__mutmut_27": _ERRSTATE,
    "ablation.stats.x_seed_means__mutmut_4": _NUMERIC_INPUT,
    "ablation.stats.x_seed_means__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_sign_flip_test__mutmut_10": _NUMERIC_INPUT,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_107": _BATCH,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_164": _METHOD_CASE,
    "ablation.stats.x_cell_table__mutmut_171": _DEFAULT_METRIC,
    "ablation.stats.x_interactions__mutmut_111": _KIND_CASE,
    "ablation.stats.x_marginal_means__mutmut_1": _NO_BOOT_COLUMN,
    "ablation.stats.x_seed_variance__mutmut_104": _REML,
    "ablation.stats.x_seed_variance__mutmut_76": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_78": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_125": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_127": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_167": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_169": _ROW_COLUMNS,
    "ablation.stats.x_seed_variance__mutmut_30": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_31": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_32": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_33": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_46": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_47": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_48": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_49": _ROW_KEY,
    "ablation.stats.x_seed_variance__mutmut_84": _BOOL_DUMMIES,
    "ablation.stats.x_seed_variance__mutmut_87": _BOOL_DUMMIES,
    "ablation.stats.x__cells__mutmut_3": _KEYS_INDEX,
    "ablation.stats.x__cells__mutmut_5": _NO_FACTOR_CODES,
    "ablation.stats.x__cells__mutmut_7": _NO_FACTOR_CODES,
    "ablation.stats.x__cells__mutmut_11": _DROPNA_NONE,
    "ablation.stats.x__main_effects_core__mutmut_63": _NO_FACTOR_BOOT,
    "ablation.stats.x_anderson_ci__mutmut_6": _AXIS_1,
    "ablation.stats.x_anderson_ci__mutmut_45": _AXIS_1,
    "ablation.stats.x_anderson_ci__mutmut_62": _UPPER_CLIP,
    "ablation.stats.x_anderson_ci__mutmut_70": _UPPER_CLIP,
    "ablation.stats.x_anderson_ci__mutmut_87": _UPPER_CLIP,
    "ablation.stats.x_anderson_ci__mutmut_93": _UPPER_CLIP,
    "ablation.stats.x_anderson_ci__mutmut_61": _POSITIVE_STEPS,
    "ablation.stats.x_anderson_ci__mutmut_86": _POSITIVE_STEPS,
    "ablation.stats.x__band_area__mutmut_11": _ZERO_HEIGHT,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_90": _VECTORIZED,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_95": _VECTORIZED,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_100": _VECTORIZED,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_92": _BATCH,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_97": _BATCH,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_105": _BATCH,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_108": _BATCH,
    "ablation.stats.x_bootstrap_mean_ci__mutmut_149": _BOTH_NAN,
    "ablation.stats.x_clopper_pearson_ci__mutmut_44": _COUNT_GUARD,
    "ablation.stats.x_clopper_pearson_ci__mutmut_72": _COUNT_GUARD,
    "ablation.stats.x_clopper_pearson_ci__mutmut_49": _K_EQUALS_N,
    "ablation.stats.x_clopper_pearson_ci__mutmut_55": _K_EQUALS_N,
    "ablation.stats.x_clopper_pearson_ci__mutmut_56": _CLIPPED_TO_1,
    "ablation.stats.x_clopper_pearson_ci__mutmut_74": _IN_UNIT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_75": _IN_UNIT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_80": _IN_UNIT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_82": _IN_UNIT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_83": _IN_UNIT,
    "ablation.stats.x_clopper_pearson_ci__mutmut_88": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_73": _CLIPPED_TO_1,
    "ablation.stats.x_wilson_ci__mutmut_76": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_77": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_82": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_84": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_85": _IN_UNIT,
    "ablation.stats.x_wilson_ci__mutmut_90": _IN_UNIT,
    "ablation.stats.x_interactions__mutmut_34": _TABLE_ORDER,
    "ablation.stats.x_interactions__mutmut_36": _TABLE_ORDER,
    "ablation.stats.x_interactions__mutmut_37": _TABLE_ORDER,
    "ablation.stats.x_paired_comparisons__mutmut_126": _NAN_EMPTY,
    "ablation.stats.x_run_accuracy__mutmut_37": _ZERO_TOTAL,
    "ablation.stats.x_sign_flip_test__mutmut_43": _QUANTIZED_BAR,
    "ablation.stats.x_sign_flip_test__mutmut_46": _QUANTIZED_BAR,
    "ablation.stats.x_sign_flip_test__mutmut_48": _QUANTIZED_BAR,
    "ablation.stats.x_sign_flip_test__mutmut_80": _BATCH,
    "ablation.stats.x_sign_flip_test__mutmut_12": _NUMERIC_INPUT,
    "ablation.stats.x_t_mean_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.stats.x_t_mean_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.stats.x_wilson_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.stats.x_wilson_ci__mutmut_17": _ERRSTATE,
    "ablation.stats.x_wilson_ci__mutmut_18": _ERRSTATE,
    "ablation.stats.x_wilson_ci__mutmut_19": _ERRSTATE,
    "ablation.stats.x_wilson_ci__mutmut_20": _ERRSTATE,
    "ablation.stats.x_wilson_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.stats.x_wilson_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.stats.x_wilson_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.stats.x__split__mutmut_7": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.stats.x__split__mutmut_15": "the extra bound is never read: cells run over range(n_cells)",
    "ablation.stats.x_stability_table__mutmut_38": _DEFAULT_SORT,
    "ablation.stats.x__cell_cis__mutmut_3": _ORDER_OF_SEEDS,
    "ablation.stats.x__cell_cis__mutmut_5": _DEFAULT_SORT,
    "ablation.stats.x__cell_cis__mutmut_17": _ORDER_OF_SEEDS,
    "ablation.stats.x__cell_cis__mutmut_37": _EVERY_CELL_HAS_A_SEED,
    "ablation.stats.x__cell_cis__mutmut_38": _EVERY_CELL_HAS_A_SEED,
    "ablation.stats.x__cell_cis__mutmut_44": _EVERY_CELL_HAS_A_SEED,
    "ablation.stats.x__cell_cis__mutmut_45": _EVERY_CELL_HAS_A_SEED,
    "ablation.stats.x__cell_cis__mutmut_54": _QUANTIZED,
    "ablation.stats.x_cell_table__mutmut_22": _OK_OR_DIVERGED,
    "ablation.stats.x_cell_table__mutmut_31": _OK_OR_DIVERGED,
    "ablation.stats.x_cell_table__mutmut_32": _OK_OR_DIVERGED,
    "ablation.stats.x_cell_table__mutmut_64": _DEFAULT_SORT,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_31": _EMPTY_WITH_FACTORS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_35": _EMPTY_WITH_FACTORS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_34": "an extra level row of NaN (no cell has it), which nanmax and nanmin skip: the same spreads",
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_84": "weights doubled double both sums of the ratio exactly: the same cell means",
    "ablation.stats.x_holm__mutmut_3": "the p-values are floats already (NaN for none), so asarray without dtype gives the same array",
    "ablation.stats.x_holm__mutmut_5": "the p-values are floats already (NaN for none), so asarray without dtype gives the same array",
    "ablation.stats.x_holm__mutmut_19": "tied p-values get the same adjusted p in any order (the running maximum takes the larger multiplier for both)",
    "ablation.stats.x_holm__mutmut_21": "tied p-values get the same adjusted p in any order (the running maximum takes the larger multiplier for both)",
    "ablation.stats.x_holm__mutmut_23": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.stats.x_seed_means__mutmut_20": "inverse takes every value 0..len(ids)-1, so bincount is that long without minlength",
    "ablation.stats.x_seed_means__mutmut_27": "inverse takes every value 0..len(ids)-1, so bincount is that long without minlength",
    "ablation.stats.x_reachable_p__mutmut_2": "n_nonzero is never negative; at 0 the formula gives min(1, 2) = 1, the else value",
    "ablation.stats.x_reachable_p__mutmut_18": "n_nonzero is never negative; at 0 the formula gives min(1, 2) = 1, the else value",
    "ablation.stats.x_reachable_p__mutmut_19": "at n_nonzero = 1 the formula gives 2 ** 0 = 1, the else value",
    "ablation.stats.x_reachable_p__mutmut_8": "2 ** (1 - n) <= 1 for every n >= 1: the cap at 1 or 2 never binds",
    "ablation.stats.x_reachable_p__mutmut_17": "2 ** -1099 and 2 ** -1100 both underflow to 0.0",
    "ablation.stats.x_bootstrap_mean_ci__mutmut_98": "Y is 2-D (samples, n): axis +1 is axis -1",
    "ablation.stats.x_bootstrap_mean_ci__mutmut_125": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.stats.x_bootstrap_mean_ci__mutmut_126": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.stats.x_bootstrap_mean_ci__mutmut_128": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.stats.x_cohen_dz__mutmut_10": _NAN_TEXT,
    "ablation.stats.x_cohen_dz__mutmut_24": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_130": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_140": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_146": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_154": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_210": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_224": _NAN_TEXT,
    "ablation.stats.x__pair_frame__mutmut_15": _DROPNA_NONE,
    "ablation.stats.x__pair_frame__mutmut_16": _NGROUP_OBSERVED,
    "ablation.stats.x__pair_frame__mutmut_18": _DEFAULT_SORT,
    "ablation.stats.x__pair_frame__mutmut_20": _NGROUP_OBSERVED,
    "ablation.stats.x__pair_frame__mutmut_23": _NGROUP_OBSERVED,
    "ablation.stats.x__pair_frame__mutmut_44": _UNIQUE_CODES,
    "ablation.stats.x__pair_frame__mutmut_48": _UNIQUE_CODES,
    "ablation.stats.x__pair_frame__mutmut_50": _UNIQUE_CODES,
    "ablation.stats.x__pair_frame__mutmut_62": _FLOAT_VALUES,
    "ablation.stats.x__pair_frame__mutmut_64": _FLOAT_VALUES,
    "ablation.stats.x__pair_frame__mutmut_67": _FLOAT_VALUES,
    "ablation.stats.x__pair_frame__mutmut_69": _FLOAT_VALUES,
    "ablation.stats.x__main_effects_core__mutmut_42": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.stats.x__main_effects_core__mutmut_45": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.stats.x__main_effects_core__mutmut_46": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.stats.x__cells__mutmut_13": _DEFAULT_SORT,
    "ablation.stats.x_paired_comparisons__mutmut_16": "resolution's default metric is test_acc",
    "ablation.stats.x_paired_comparisons__mutmut_48": "with no matched pair the step meets only empty arrays (sign_flip_test returns early, mean_ci gives NaN)",
    "ablation.stats.x_paired_comparisons__mutmut_73": _QUANTIZED,
    "ablation.stats.x_paired_comparisons__mutmut_169": "p_holm < alpha is False, never NaN, for a NaN p: fillna has nothing to fill",
    "ablation.stats.x_paired_comparisons__mutmut_175": "p_holm < alpha is False, never NaN, for a NaN p: fillna has nothing to fill",
    "ablation.stats.x_mde__mutmut_2": "with n < 2 a t quantile of n - 1 <= 0 degrees of freedom is NaN, and a NaN sd gives NaN: the early return changes nothing",
    "ablation.claims.x__slopes__mutmut_8": "the norms' numeric dtype (int or float) gives the same mask and the same float64 logarithms",
    "ablation.claims.x__slopes__mutmut_18": _INT_LAYERS,
    "ablation.claims.x__slopes__mutmut_35": "norm[ok] is positive: np.log never divides by zero there",
    "ablation.claims.x__slopes__mutmut_102": "a run with >= 2 norms all at one layer gets slope 0/0 or x/0, not finite, and is left out like a run with none",
    "ablation.claims.x__slopes__mutmut_107": "den = n * sum(x^2) - sum(x)^2 is a whole number for whole layer indices: never exactly 1e-12",
    "ablation.claims.x__slopes__mutmut_109": "astype(None) is astype(float64)",
    "ablation.claims.x__units_grad__mutmut_30": "the mapped slopes are float64 already (NaN where a run has none)",
    "ablation.claims.x__units_grad__mutmut_47": _LEVEL_FROM_COLUMN,
    "ablation.claims.x__units_grad__mutmut_48": _LEVEL_FROM_COLUMN,
    "ablation.claims.x_main__mutmut_20": _STR_PATH,
    "ablation.claims.x_main__mutmut_25": _STR_PATH,
    "ablation.claims.x_main__mutmut_36": _STR_PATH,
    "ablation.claims.x_main__mutmut_41": _STR_PATH,
    "ablation.claims.x_main__mutmut_62": _STR_PATH,
    "ablation.claims.x_main__mutmut_65": _STR_PATH,
    "ablation.claims.x__mask__mutmut_21": _NA_FLOAT,
    "ablation.claims.x__mask__mutmut_22": _NA_FLOAT,
    "ablation.claims.x__mask__mutmut_23": _NA_FLOAT,
    "ablation.claims.x__mask__mutmut_24": _NA_FLOAT,
    "ablation.claims.x__mask__mutmut_38": "str(True) is 'True'",
    "ablation.claims.x__mask__mutmut_45": "str(False) is 'False'",
    "ablation.claims.x__mask__mutmut_51": "str(False) is 'False'",
    "ablation.claims.x__cis__mutmut_3": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_7": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_12": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_17": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_18": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_27": _NEVER_N_LT_2,
    "ablation.claims.x__cis__mutmut_28": _NEVER_N_LT_2,
    "ablation.claims.x__decider__mutmut_124": _THIRD_LABEL,
    "ablation.claims.x__decider__mutmut_130": _THIRD_LABEL,
    "ablation.claims.x__decider__mutmut_131": _THIRD_LABEL,
    "ablation.claims.x__decider__mutmut_96": "unreachable: check_claims (the schema's oneOf) admits only the kinds above",
    "ablation.claims.xǁ_Unitsǁ__init____mutmut_2": "nothing reads _Units.per_seed",
    "ablation.claims.x__cell_units__mutmut_5": "factor columns hold no missing value (analyze.read_table reads every level as written): dropna changes no count",
    "ablation.claims.x__cell_units__mutmut_6": "factor columns hold no missing value (analyze.read_table reads every level as written): dropna changes no count",
    "ablation.claims.x__claim_p__mutmut_68": _RUN_NOTE_METRIC,
    "ablation.claims.x__claim_p__mutmut_70": _RUN_NOTE_METRIC,
    "ablation.claims.x__claim_p__mutmut_73": _RUN_NOTE_METRIC,
    "ablation.claims.x__claim_p__mutmut_74": _RUN_NOTE_METRIC,
    "ablation.claims.x__claim_p__mutmut_77": _NO_SEEDS_LEFT,
    "ablation.claims.x__claim_p__mutmut_79": _NO_SEEDS_LEFT,
    "ablation.claims.x__claim_p__mutmut_85": _SORTED_SEEDS,
    "ablation.claims.x__claim_p__mutmut_87": _SORTED_SEEDS,
    "ablation.claims.x__claim_p__mutmut_89": _SORTED_SEEDS,
    "ablation.claims.x__claim_p__mutmut_91": _SORTED_SEEDS,
    "ablation.claims.x__claim_p__mutmut_93": _SORTED_SEEDS,
    "ablation.claims.x__claim_p__mutmut_165": _MEAN_ZERO,
    "ablation.claims.x__claim_p__mutmut_167": _ABOVE_ONE,
    "ablation.claims.x__claim_p__mutmut_170": _MEAN_ZERO,
    "ablation.claims.x__claim_p__mutmut_172": _ABOVE_ONE,
    "ablation.claims.x__claim_p__mutmut_184": _ABOVE_ONE,
    "ablation.claims.x__claim_p__mutmut_268": _SEED_ORDER,
    "ablation.claims.x__claim_p__mutmut_270": _SEED_ORDER,
    "ablation.claims.x__claim_p__mutmut_288": _N_CELLS_UNREAD,
    "ablation.claims.x__claim_p__mutmut_298": _N_CELLS_UNREAD,
    "ablation.claims.x__claim_p__mutmut_308": _N_CELLS_UNREAD,
    "ablation.claims.x_evaluate_family__mutmut_60": "stats.holm of no p-value is the empty array, raw itself",
    "ablation.claims.x_evaluate_family__mutmut_68": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.claims.x_evaluate_family__mutmut_90": "a floor of 1 or more exceeds alpha (< 1, schema) either way: INCONCLUSIVE, capped at 1 or at 2",
    "ablation.claims.x_evaluate_family__mutmut_139": _TEXTS,
    "ablation.claims.x_evaluate_family__mutmut_147": _TEXTS,
    "ablation.claims.x_evaluate_family__mutmut_148": _TEXTS,
    "ablation.claims.x_evaluate_family__mutmut_149": _LOO_NEVER_RAISES,
    "ablation.claims.x_evaluate_family__mutmut_150": _LOO_NEVER_RAISES,
    "ablation.claims.x_evaluate_family__mutmut_151": _LOO_NEVER_RAISES,
    "ablation.claims.x_evaluate_family__mutmut_152": _LOO_NEVER_RAISES,
    "ablation.claims.x_evaluate_family__mutmut_153": _LOO_NEVER_RAISES,
    "ablation.claims.x_evaluate_family__mutmut_186": _NAN_TEXT,
    "ablation.claims.x_evaluate_family__mutmut_199": _TEXTS,
    "ablation.claims.x_evaluate_family__mutmut_207": _TEXTS,
    "ablation.claims.x_evaluate_family__mutmut_211": _TEXTS,
    "ablation.claims.x__decided_lazily__mutmut_14": _STRICTLY_BELOW,
    "ablation.claims.x__decided_lazily__mutmut_21": _STRICTLY_BELOW,
    "ablation.claims.x__decided_lazily__mutmut_25": ("an exact bracket (lo = p) has returned at the test above; otherwise lo lies below p by at least the "
                                                     "bisection's last step, so holm_factor * p > alpha where holm_factor * lo = alpha: > and >= agree"),
    "ablation.claims.x_evaluate_claims__mutmut_9": "evaluate_claims drops the study column, the only place the name appears",
    "ablation.claims.x__cell_units__mutmut_49": _DEFAULT_SORT,
    "ablation.stats.x_metric_values__mutmut_11": "astype(None) is astype(float64)",
    "ablation.stats.x_stability_table__mutmut_55": _RESET_INDEX,
    "ablation.stats.x_stability_table__mutmut_56": _RESET_INDEX,
    "ablation.stats.x_cell_table__mutmut_203": _RESET_INDEX,
    "ablation.stats.x_cell_table__mutmut_204": _RESET_INDEX,
    "ablation.stats.x_pair_runs__mutmut_24": "_pair_frame returns the values as float arrays whatever their dtype",
    "ablation.stats.x_pair_runs__mutmut_26": "_pair_frame returns the values as float arrays whatever their dtype",
    "ablation.stats.x_mde__mutmut_9": _NAN_TEXT,
    "ablation.stats.x__main_effects_core__mutmut_22": _NAN_TEXT,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_41": _BATCH,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_47": _BATCH,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_49": _BATCH,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_85": _WARNINGS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_86": _WARNINGS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_87": _WARNINGS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_88": _WARNINGS,
    "ablation.stats.x__seed_bootstrap_level_means__mutmut_96": "ignoring every warning there instead of RuntimeWarning: nothing else warns in that block",
    "ablation.io.x__file_mode__mutmut_3": "the probe's value is discarded: os.umask returns the old mask either way and the next line restores it",
    "ablation.io.x_write_text__mutmut_5": _MODE_W,
    "ablation.io.x_write_csv__mutmut_12": _MODE_W,
    "ablation.io.x_write_dataframe__mutmut_6": _MODE_W,
    "ablation.io.x_write_text__mutmut_10": _UTF8,
    "ablation.io.x_write_csv__mutmut_18": _UTF8,
    "ablation.io.x_write_dataframe__mutmut_12": _UTF8,
    "ablation.io.x_write_csv__mutmut_10": _NEWLINE,
    "ablation.io.x_write_csv__mutmut_14": _NEWLINE,
    "ablation.io.x_write_dataframe__mutmut_4": _NEWLINE,
    "ablation.io.x_write_dataframe__mutmut_8": _NEWLINE,
    "ablation.io.x_write_dataframe__mutmut_15": "pandas reads index=None as false: no index column either way",
    "ablation.io.x_write_dataframe__mutmut_16": "pandas then ends lines with os.linesep, '\\n' on POSIX",
    "ablation.io.x_write_dataframe__mutmut_19": "pandas then ends lines with os.linesep, '\\n' on POSIX",
    "ablation.model.x_sinusoidal_encoding__mutmut_23": _FLOAT64_ONCE,
    "ablation.model.x_sinusoidal_encoding__mutmut_26": _FLOAT64_ONCE,
    "ablation.model.x_sinusoidal_encoding__mutmut_4": _INT_POSITIONS,
    "ablation.model.x_sinusoidal_encoding__mutmut_6": _INT_POSITIONS,
    "ablation.model.xǁRotaryǁ__init____mutmut_13": "d_head is even (checked just above), so d_head / 2 is a whole float: torch.arange(half, dtype=float64) and the division by half give the same float64 values",
    "ablation.model.xǁRotaryǁ__init____mutmut_28": "integer positions times the float64 frequencies promote to the same float64 angles (positions below 2^53 are exact)",
    "ablation.model.xǁRotaryǁ__init____mutmut_30": "integer positions times the float64 frequencies promote to the same float64 angles (positions below 2^53 are exact)",
    "ablation.model.xǁRotaryǁ__init____mutmut_34": "register_buffer tests `if persistent:`; None, like False, adds the buffer to the non-persistent set",
    "ablation.model.xǁRotaryǁ__init____mutmut_49": "register_buffer tests `if persistent:`; None, like False, adds the buffer to the non-persistent set",
    "ablation.model.xǁALiBiǁ__init____mutmut_31": "register_buffer tests `if persistent:`; None, like False, adds the buffer to the non-persistent set",
    "ablation.model.xǁOrderClassifierǁforward__mutmut_17": "the head's logits are [B, 1]: squeeze(+1) and squeeze(-1) name the same dimension",
    "ablation.model.xǁTinyAttnClassifierǁforward__mutmut_15": "the head's logits are [B, 1]: squeeze(+1) and squeeze(-1) name the same dimension",
    "ablation.config.x_load_yaml__mutmut_16": _UTF8,
    "ablation.config.x_load_yaml__mutmut_12": _LOCALE_UTF8,
    "ablation.config.x_load_yaml__mutmut_14": _LOCALE_UTF8,
    "ablation.config.x__fill_defaults__mutmut_17": "every default of the schema is a scalar or a flat list or mapping: a shallow copy is already a fresh object",
    "ablation.config.x__validate__mutmut_47": "study names are ASCII (the schema's pattern): upper- and lower-casing fold the same names together",
    "ablation.config.x__validate__mutmut_88": _BEST_MATCH,
    "ablation.config.x__validate__mutmut_89": _BEST_MATCH,
    "ablation.config.x__schema_error_line__mutmut_89": _BEST_MATCH,
    "ablation.config.x__schema_error_line__mutmut_90": _BEST_MATCH,
    "ablation.config.x__schema_error_line__mutmut_219": _FALLBACK,
    "ablation.config.x__schema_error_line__mutmut_220": _FALLBACK,
    "ablation.config.x__schema_error_line__mutmut_221": _FALLBACK,
    "ablation.config.x__schema_error_line__mutmut_222": _FALLBACK,
    "ablation.config.x__schema_error_line__mutmut_223": _FALLBACK,
    "ablation.sequential.x_claim_p__mutmut_16": "claim_p_path uses x only through directional_p, whose _scale converts it with np.asarray(x, dtype=float) itself: the same float64 values for any real-valued input",
    "ablation.sequential.x_claim_p__mutmut_18": "claim_p_path uses x only through directional_p, whose _scale converts it with np.asarray(x, dtype=float) itself: the same float64 values for any real-valued input",
    "ablation.sequential.x_reachable__mutmut_22": "for a one-sided claim the added value (lo + hi) / 2 is the boundary itself: its seeds leave the capital unchanged (z == m), so its p is the history's p, which the range-end extensions already reach or beat (running maxima)",
    "ablation.sequential.x_reachable__mutmut_31": "the extended cells go to claim_p, which converts them with np.asarray(dtype=float): for real-valued input the concatenation with the float fill gives the same float64 values",
    "ablation.sequential.x_reachable__mutmut_33": "the extended cells go to claim_p, which converts them with np.asarray(dtype=float): for real-valued input the concatenation with the float fill gives the same float64 values",
    "ablation.sequential.x_seeds_to_resolve__mutmut_29": "the two rows of np.full are identical and claim_p_path treats rows independently (every operation runs along the last axis); row 0 is read either way",
    "ablation.sequential.x_confidence_sequence__mutmut_5": "x is used only through _scale, which converts it with np.asarray(x, dtype=float) itself",
    "ablation.sequential.x_confidence_sequence__mutmut_7": "x is used only through _scale, which converts it with np.asarray(x, dtype=float) itself",
    "ablation.sequential.x_confidence_sequence__mutmut_84": "first = ms[k] - step <= ms[-1] - step, about hi - 2 step: the upper clip of the lower end never binds",
    "ablation.sequential.x_confidence_sequence__mutmut_89": "last = ms[k] + step >= ms[0] + step, about lo + 2 step: the lower clip of the upper end never binds",
    "ablation.sequential.x_run_schedule__mutmut_38": "for a one-sided claim the added value (lo + hi) / 2 is the boundary itself: its seeds leave the capital unchanged, so its p is the p at the look, above alpha for every open sequence (else it was decided)",
    "ablation.sequential.x_run_schedule__mutmut_72": "once no sequence is open, later looks change nothing (decided and stop are masked by open_); at the last look the extra pass extends by 0 seeds and sets used to the last look, its default",
    "ablation.sequential.x_power__mutmut_17": "ndarray.astype(None) converts to float64, the same as astype(float)",
    "ablation.sequential.x_power__mutmut_23": "only the first alternative (i = 0) draws random numbers (the others are constant sequences), and 100 - 0 == 100 + 0",
    "ablation.sequential.x_plugin_lambda__mutmut_4": "t holds small whole numbers: as int64 they give the same float64 values in t + 1, s2_prev * t and log1p(t)",
    "ablation.sequential.x_plugin_lambda__mutmut_7": "t holds small whole numbers: as int64 they give the same float64 values in t + 1, s2_prev * t and log1p(t)",
    "ablation.sequential.x_log_capital__mutmut_3": "z reaches log_capital as float64 (from _scale); for any numeric z, np.asarray(z) gives the same values and every expression promotes to float64",
    "ablation.sequential.x_log_capital__mutmut_5": "z reaches log_capital as float64 (from _scale); for any numeric z, np.asarray(z) gives the same values and every expression promotes to float64",
    "ablation.sequential.x_log_capital__mutmut_8": "m is a float (directional_p) or a float64 array (confidence_sequence); for any numeric m, C_TRUNCATE / m, 1 - m and z - m give the same float64 values",
    "ablation.sequential.x_log_capital__mutmut_10": "m is a float (directional_p) or a float64 array (confidence_sequence); for any numeric m, C_TRUNCATE / m, 1 - m and z - m give the same float64 values",
    "ablation.data.x__labels__mutmut_3": "pos_a never equals pos_b (the offset is 1..seq_len-1), so < and <= agree",
    "ablation.data.x__sequences__mutmut_5": "rng.integers(seq_len) is rng.integers(0, seq_len): the same draws",
}


# Survivors that do behave differently, but whose difference no test should pin (a free choice, not a
# specified behaviour): mutant name -> why they are left. They count as survived in every score.
LEFT_ALONE: dict[str, str] = {
    **{f"ablation.sequential.x_boundary_nulls__mutmut_{n}": "a Beta concentration of a simulated null (the spread "
       "across seeds, a free choice: no spec says 30 rather than 31); the mean, which makes it a boundary null, "
       "stays on the boundary (tested)" for n in (20, 43, 64, 74)},
}  # fmt: skip


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()


def package_imports(path: Path) -> set[str]:
    """The package's modules a Python file imports (``from . import x``, ``from .x import``, ``from
    ablation import x``, ``from ablation.x import``, ``import ablation.x``), as file names."""
    names = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            module = node.module or ""
            if node.level == 1 or module == "ablation":
                names |= {module} if module and node.level else {a.name for a in node.names}
            if module.startswith("ablation."):
                names.add(module.split(".")[1])
        elif isinstance(node, ast.Import):
            names |= {a.name.split(".")[1] for a in node.names if a.name.startswith("ablation.")}
    return {f"{n}.py" for n in names if (PACKAGE / f"{n}.py").is_file()}


def watched(name: str) -> list[str]:
    """The files whose change can change ``name``'s row: the module, its tests, tests/conftest.py and
    every package module these import, directly or through each other (repository-relative)."""
    files = {PACKAGE / f"{name}.py", *(REPO / t for t in MODULES[name]["tests"]), REPO / "tests" / "conftest.py"}
    todo = [f for f in files if f.exists()]
    while todo:
        for imported in package_imports(todo.pop()):
            path = PACKAGE / imported
            if path not in files:
                files.add(path)
                todo.append(path)
    return sorted(str(f.relative_to(REPO)) for f in files if f.exists())


def changed_since(name: str, row: dict) -> list[str]:
    """The watched files of ``name`` that differ between its row's commit and the working tree; all
    of them when that commit is unknown here or was measured with uncommitted changes (-dirty)."""
    files = watched(name)
    commit = row["commit"]
    if commit.endswith("-dirty"):
        return files
    try:
        changed = git("diff", "--name-only", commit, "--", *files).splitlines()
    except subprocess.CalledProcessError:
        return files
    return sorted(set(changed) | set(git("ls-files", "--others", "--exclude-standard", "--", *files).splitlines()))


def out_of_date(data: dict) -> dict[str, list[str]]:
    """Module -> the watched files changed since its row (every file for a module not measured)."""
    rows = data["modules"]
    out = {name: changed_since(name, rows[name]) if name in rows else watched(name) for name in MODULES}
    return {name: files for name, files in out.items() if files}


# A conftest.py for the scratch folder's root (mutmut copies it into mutants/, where the tests run):
# a mutant's selected tests run fastest first, by the durations mutmut recorded on the unmutated code,
# so that pytest's -x (mutmut's) stops at the first failing test as soon as it can. The tests and
# their verdicts are the same; only their order changes (mutmut passes them as an unordered set).
# It also freezes the garbage collector's view of what mutmut's fork server imported in its warm-up
# (pytest --collect-only: torch, pandas, the tests): every mutant's pytest run in a forked child ends
# with full collections (pytest's unraisableexception plugin), which otherwise walk all of it and copy
# its pages. gc.freeze() before fork is what Python's gc docs advise; it changes no object and no test.
# What it saves: `python benchmarks/mutation.py --fork-cost` (mutation.md, "A mutant's pytest run").
ORDER_HOOK = """\
import gc
import json
from pathlib import Path

_DURATIONS = {}


def pytest_collection_modifyitems(config, items):
    stats = Path(__file__).with_name("mutmut-stats.json")
    if not _DURATIONS and stats.exists():  # read once, when mutmut has written it
        _DURATIONS.update(json.loads(stats.read_text())["duration_by_test"])
    items.sort(key=lambda item: _DURATIONS.get(item.nodeid, float("inf")))


def pytest_sessionfinish(session):
    if session.config.option.collectonly:  # the fork server's warm-up, before it forks the mutants' runs
        gc.collect()
        gc.freeze()
"""

# --fork-cost: in a process warmed up as mutmut's fork server is (pytest --collect-only on the module's
# tests, the conftest above), the wall time of one forked pytest run of one test, the way mutmut runs a
# mutant's tests; with the warm-up's objects unfrozen and frozen, alternately, fastest of `repeats` each.
FORK_COST = """\
import contextlib, gc, io, json, os, sys, time
import pytest
selection, repeats = json.loads(sys.argv[1]), int(sys.argv[2])
ids = []
class Ids:
    def pytest_collection_finish(self, session):
        ids.extend(item.nodeid for item in session.items)
with contextlib.redirect_stdout(io.StringIO()):
    pytest.main(["--rootdir=.", "--collect-only", "-qqq", *selection, "-p", "no:cacheprovider"], plugins=[Ids()])
assert gc.get_freeze_count() > 0, "the conftest's hook did not freeze the warm-up"
args = ["--rootdir=.", "--tb=native", "-x", "-q", "-p", "no:randomly", "-p", "no:random-order", ids[0],
        "-p", "no:cacheprovider", "-q"]
best = {"unfrozen": float("inf"), "frozen": float("inf")}
for _ in range(repeats):
    for mode in best:
        if mode == "unfrozen":
            gc.unfreeze()
        else:
            gc.collect()
            gc.freeze()
        start = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            sys.stdout = sys.stderr = open(os.devnull, "w")
            os._exit(int(pytest.main(args)))
        _, status = os.waitpid(pid, 0)
        assert os.waitstatus_to_exitcode(status) == 0, (mode, ids[0])
        best[mode] = min(best[mode], time.perf_counter() - start)
print(json.dumps({"test": ids[0], **best}))
"""


def _selection(spec: dict) -> list[str]:
    """pytest's arguments that select a module's tests (``spec``: its MODULES entry)."""
    return [*spec["tests"]] + (["-k", f"not {spec['deselect']}"] if spec.get("deselect") else [])


def write_setup(folder: Path, name: str, spec: dict) -> None:
    """mutmut's setup.cfg: the module to mutate and the tests that judge it (``spec``)."""
    selection = _selection(spec)
    cfg = configparser.ConfigParser()
    cfg["mutmut"] = {
        "source_paths": "src",
        "only_mutate": f"src/ablation/{name}.py",
        "also_copy": "\nconfig\nworkflow\nenvironment.yml\nconftest.py\nbenchmarks",
        "pytest_add_cli_args_test_selection": "\n" + "\n".join(selection),
        "pytest_add_cli_args": "\n-p\nno:cacheprovider\n-q",
        # torch in the test process: fork each mutant's worker from a clean server (mutmut's advice)
        "process_isolation": "forkserver",
    }
    with open(folder / "setup.cfg", "w") as fh:
        cfg.write(fh)


def scratch(name: str, spec: dict) -> Path:
    """A fresh folder laid out for mutmut: src/ablation (the package), tests/, config/, workflow/,
    and benchmarks/ less its scratch folders (work/)."""
    folder = WORK / name
    shutil.rmtree(folder, ignore_errors=True)
    (folder / "src").mkdir(parents=True)
    shutil.copytree(REPO / "scripts" / "ablation", folder / "src" / "ablation",
                    ignore=shutil.ignore_patterns("__pycache__"))  # fmt: skip
    for sub in ("tests", "config", "workflow"):
        shutil.copytree(REPO / sub, folder / sub, ignore=shutil.ignore_patterns("__pycache__", "artifacts"))
    shutil.copy2(REPO / "environment.yml", folder / "environment.yml")
    # tests load benchmark scripts (test_variants: harness/naive.py and naive.yaml); work/ holds these scratch folders
    shutil.copytree(REPO / "benchmarks", folder / "benchmarks", ignore=shutil.ignore_patterns("__pycache__", "work"))
    (folder / "conftest.py").write_text(ORDER_HOOK)
    write_setup(folder, name, spec)
    return folder


def fork_cost(name: str, repeats: int) -> dict:
    """--fork-cost: what one mutant's pytest run costs in a forked child, with the fork server's
    warm-up objects unfrozen and frozen (FORK_COST), in a fresh scratch folder of ``name``."""
    folder = scratch(name, MODULES[name])
    env = {**mutmut_env(), "PYTHONPATH": str(folder / "src")}
    before = os.getloadavg()[0]
    out = subprocess.run([sys.executable, "-c", FORK_COST, json.dumps(_selection(MODULES[name])), str(repeats)], cwd=folder, env=env,
                         capture_output=True, text=True, check=True).stdout  # fmt: skip
    result = json.loads(out.strip().splitlines()[-1])
    return {**result, "module": name, "repeats": repeats, "load": [before, os.getloadavg()[0]]}


def mutmut_env() -> dict:
    """The environment of a mutmut run: one thread, a fixed hash seed, and CI unset (slow tests stay skipped)."""
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "PYTHONHASHSEED": "0"}
    env.pop("CI", None)
    return env


def run_module(name: str, spec: dict, children: int) -> dict:
    folder = scratch(name, spec)
    start = time.monotonic()
    env = mutmut_env()
    proc = mutmut_run(folder, env, children)
    return collect(folder, env, proc, time.monotonic() - start)


def mutmut_run(folder: Path, env: dict, children: int, names=()) -> subprocess.CompletedProcess:
    """``mutmut run`` in ``folder``, its output appended to run.log; the machine's 1-minute load
    average sampled every LOAD_EVERY seconds meanwhile (``loads``: the machine is shared, and the
    minutes mean little without it; the run's own ``children`` workers count in it)."""
    loads = []
    with open(folder / "run.log", "a") as log:
        proc = subprocess.Popen([str(MUTMUT), "run", "--max-children", str(children), *names], cwd=folder, env=env,
                                stdout=log, stderr=subprocess.STDOUT)  # fmt: skip
        while True:
            loads.append(os.getloadavg()[0])
            try:
                proc.wait(timeout=LOAD_EVERY)
                break
            except subprocess.TimeoutExpired:
                continue
    done = subprocess.CompletedProcess(proc.args, proc.returncode, (folder / "run.log").read_text(), "")
    done.loads = loads
    return done


def carry_on(name: str, children: int, survivors_only: bool = False) -> dict:
    """Carry on in the last run's folder of ``name`` with the current tests: mutants not yet tested
    (a run stopped part-way) and the survivors (status survived or no tests) are tested; killed ones
    stay killed, as tests are only ever added or sharpened. The module's source must be the one that
    run mutated (mutant names are numbered per function). ``seconds`` is this pass only.
    ``survivors_only``: test the survivors alone; mutants not yet tested stay so (a partial row)."""
    folder = WORK / name
    mutated = folder / "src" / "ablation" / f"{name}.py"
    meta = folder / "mutants" / "src" / "ablation" / f"{name}.py.meta"
    if not meta.exists() or mutated.read_bytes() != (REPO / "scripts" / "ablation" / f"{name}.py").read_bytes():
        sys.exit(f"{name}: its source changed since the last run (or there was none): run it in full")
    start = time.monotonic()
    env = mutmut_env()
    for dest in (folder / "tests", folder / "mutants" / "tests"):
        shutil.rmtree(dest, ignore_errors=True)
        shutil.copytree(REPO / "tests", dest, ignore=shutil.ignore_patterns("__pycache__", "artifacts"))
    (folder / "mutants" / "mutmut-stats.json").unlink(missing_ok=True)  # which tests reach what: collect anew
    (folder / "mutants" / "conftest.py").write_text(ORDER_HOOK)
    write_setup(folder, name, MODULES[name])  # the module's tests as declared now
    state = json.loads(meta.read_text())
    survivors = [m for m, code in state["exit_code_by_key"].items() if code in (0, 33)]  # survived, no tests
    for mutant in survivors:
        state["exit_code_by_key"][mutant] = None
    meta.write_text(json.dumps(state))
    names = survivors if survivors_only else []
    if survivors_only and not survivors:
        return collect(folder, env, None, 0.0) | {"carried_on": True}
    proc = mutmut_run(folder, env, children, names)
    out = collect(folder, env, proc, time.monotonic() - start)
    out["carried_on"] = True
    return out


def collect(folder: Path, env: dict, proc, seconds: float) -> dict:
    results = subprocess.run([str(MUTMUT), "results", "--all", "true"], cwd=folder, env=env,
                             capture_output=True, text=True).stdout  # fmt: skip
    status: dict[str, str] = {}
    for line in results.splitlines():
        m = re.match(r"\s*(\S+): (.+)$", line)
        if m:
            status[m.group(1)] = m.group(2).strip()
    counts = {k: sum(v == k for v in status.values())
              for k in ("killed", "survived", "timeout", "suspicious", "no tests", "not checked")}  # fmt: skip
    survivors = {}
    for mutant, diff in _diffs(folder, env, sorted(m for m, s in status.items() if s in ("survived", "no tests"))).items():
        changed = [ln for ln in diff.splitlines() if ln[:1] in "+-" and not ln.startswith(("+++", "---"))]
        survivors[mutant] = " / ".join(ln.strip() for ln in changed)[:240]
    return {
        "counts": counts,
        "total": len(status),
        "survivors": survivors,
        "seconds": round(seconds, 1),
        "returncode": proc.returncode if proc else None,
        "load": _load(proc.loads) if proc and getattr(proc, "loads", None) else None,
        "log_tail": (proc.stdout + proc.stderr)[-1500:] if proc and not status else "",
    }


# The diff `mutmut show NAME` prints (less its status line), for many mutants in one process: a
# `mutmut show` per survivor starts Python and imports mutmut for each.
SHOW = """\
import json, sys
from mutmut.mutation.diff_apply import get_diff_for_mutant
path, names = sys.argv[1], json.loads(sys.stdin.read())
print(json.dumps({name: get_diff_for_mutant(name, path=path) for name in names}))
"""


def _diffs(folder: Path, env: dict, mutants: list[str]) -> dict:
    """Each mutant's diff against the module's code, as ``mutmut show`` prints it."""
    if not mutants:
        return {}
    cfg = configparser.ConfigParser()
    cfg.read(folder / "setup.cfg")
    out = subprocess.run([sys.executable, "-c", SHOW, cfg["mutmut"]["only_mutate"]], cwd=folder,
                         env=env, input=json.dumps(mutants), capture_output=True, text=True, check=True).stdout  # fmt: skip
    return json.loads(out)


def _load(loads: list[float]) -> dict:
    """Mean and highest of the load averages sampled during a run."""
    return {"mean": round(sum(loads) / len(loads), 1), "max": round(max(loads), 1), "samples": len(loads)}


def _stopped_run_seconds(name: str) -> float:
    """How long a run stopped part-way ran: from its scratch folder's setup to its last recorded result."""
    folder = WORK / name
    meta = folder / "mutants" / "src" / "ablation" / f"{name}.py.meta"
    if not meta.exists():
        return 0.0
    return max(0.0, meta.stat().st_mtime - (folder / "setup.cfg").stat().st_mtime)


def score(row: dict) -> float | None:
    c = row["counts"]
    judged = c["killed"] + c["survived"] + c["timeout"] + c["no tests"]
    return c["killed"] / judged if judged else None


def _partial(counts: dict) -> str:
    """A run stopped part-way (``--collect-only``): how many mutants it had not tested yet."""
    return f" (partial: {counts['not checked']} not yet tested)" if counts.get("not checked") else ""


def render(data: dict) -> str:
    lines = [
        "# Mutation score of the modules that decide results",
        "",
        "Written by `make mutation` (`benchmarks/mutation.py`): mutmut plants one small bug at a time in a",
        "module and runs that module's unit tests against it. *killed*: some test failed; *survived*: every",
        "test passed; *timeout*: the tests ran past mutmut's limit; *no tests*: no selected test reaches the",
        "mutated function. Score = killed / (killed + survived + timeout + no tests); *equivalent*: survivors",
        "listed below with the reason no behaviour tells them from the original; the last score leaves them out.",
        "*minutes*: the run's wall time on this 2-core machine, with the machine's 1-minute load average",
        f"during it where recorded (sampled every {LOAD_EVERY} s; the run's own workers count in it).",
        "*commit*: the checkout measured (*-dirty*: with uncommitted changes under scripts/ or tests/).",
        "A row is out of date once a file it depends on changes (listed below the table): `make mutation`",
        "re-measures those rows only, `make mutation MODULES=\"io data\"` the modules named, and",
        "`python benchmarks/mutation.py --all` every module.",
        "",
        "The tool is mutmut (pinned in requirements.txt) rather than cosmic-ray: mutmut forks each mutant's test",
        "run from a process that has imported torch and the tests already, and runs only the tests that reach",
        "the mutated function; cosmic-ray starts the whole test command afresh for every mutant. A mutant's tests",
        "run fastest first (by the durations mutmut recorded on the unmutated code), so that mutmut's `pytest -x`",
        "stops at the first failing test as soon as it can; the order changes no status.",
        "",
        "| module | tests | commit | killed | survived | timeout | no tests | equivalent | score | score, equivalents aside | goal | minutes |",
        "| --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name, spec in MODULES.items():
        tests = ", ".join(Path(t).name for t in spec["tests"])
        goal = GOAL.get(name, DEFAULT_GOAL)
        row = data["modules"].get(name)
        if row is None:
            lines.append(f"| {name} | {tests} | not measured | | | | | | | | {goal:.0%} | |")
            continue
        c, s = row["counts"], score(row)
        eq = sum(m in EQUIVALENT for m in row["survivors"])
        judged = c["killed"] + c["survived"] + c["timeout"] + c["no tests"] - eq
        s_eq = c["killed"] / judged if judged else None
        mark = "" if s_eq is None else (" ✓" if s_eq >= goal else " ✗")
        lines.append(
            f"| {name} | {tests} | {row['commit']}{_partial(c)} | {c['killed']} | {c['survived']} | {c['timeout']} | {c['no tests']} "
            f"| {eq} | {_pct(s)} | {_pct(s_eq)}{mark} | {goal:.0%} | {row['seconds'] / 60:.1f}{_pass(row)}{_load_text(row)} |"
        )
    rows = data["modules"]
    if rows and not any(r.get("carried_on") for r in rows.values()):
        lines += ["", f"Every module afresh, one after another (`--all`): about {sum(r['seconds'] for r in rows.values()) / 60:.0f} "
                  "minutes, the sum of the rows' minutes (each under the load shown, where recorded)."]  # fmt: skip
    if run := data.get("invocation"):
        what = "every module" if set(run["modules"]) == set(MODULES) else ", ".join(run["modules"])
        lines += ["", f"The last invocation that measured ({what}{', carrying on' if run['carry_on'] else ''}, at "
                  f"{run['commit']}): {run['seconds'] / 60:.1f} minutes from its start to this file, the reading of "
                  "the results (the survivors' diffs) included."]  # fmt: skip
    if cost := data.get("fork_cost"):
        lines += ["", f"A mutant's pytest run (`--fork-cost {cost['module']}` at {cost['commit']}): one test "
                  f"(`{cost['test']}`) in a child forked from a process warmed up as mutmut's fork server is, "
                  f"{cost['unfrozen']:.3f} s with the warm-up's objects left to the garbage collector and "
                  f"{cost['frozen']:.3f} s with them frozen, as the harness's conftest does "
                  f"(fastest of {cost['repeats']} each, alternating; load {cost['load'][0]:.1f} before, "
                  f"{cost['load'][1]:.1f} after). Every mutant pays this once, whatever its tests."]  # fmt: skip
    stale = out_of_date(data)
    lines += ["", f"Rows out of date at {git('rev-parse', '--short', 'HEAD')} (a file they depend on changed since "
              "their commit: the module, its tests, tests/conftest.py or a package module these import); "
              "`make mutation` re-measures these and no others:" if stale else
              "Every row is current: no file it depends on changed since its commit."]  # fmt: skip
    lines += [f"- {name}: {', '.join(files)}" for name, files in stale.items()]
    if data.get("before"):
        lines += ["", "## Before", "",
                  "The same measurement with the tests the round started from (commit "
                  + ", ".join(sorted({r["commit"] for r in data["before"].values()}))
                  + "; *-dirty*: with its two io unit",
                  "tests moved from test_faults.py into test_io.py).", "",
                  "| module | commit | killed | survived | timeout | no tests | score |",
                  "| --- | --- | ---: | ---: | ---: | ---: | ---: |"]  # fmt: skip
        for name in [m for m in MODULES if m in data["before"]]:
            row = data["before"][name]
            c = row["counts"]
            lines.append(f"| {name} | {row['commit']} | {c['killed']} | {c['survived']} | {c['timeout']} "
                         f"| {c['no tests']} | {_pct(score(row))} |")  # fmt: skip
        if missing := [m for m in MODULES if m not in data["before"]]:
            lines += ["", f"Not measured with the tests the round started from: {', '.join(missing)}."]
    lines += ["", "## Surviving mutants", ""]
    for name, row in data["modules"].items():
        if not row["survivors"]:
            continue
        lines += [f"### {name}", ""]
        for mutant, diff in row["survivors"].items():
            if mutant in EQUIVALENT:
                tag = f"equivalent: {EQUIVALENT[mutant]}"
            elif mutant in LEFT_ALONE:
                tag = f"**not killed**, left alone: {LEFT_ALONE[mutant]}"
            else:
                tag = "**not killed**"
            lines.append(f"- `{mutant}` ({tag}): `{diff}`")
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def _pass(row: dict) -> str:
    """A row carried on (``--carry-on``): its minutes are that pass's, after the run it carried on."""
    return " (carry-on pass)" if row.get("carried_on") else ""


def _load_text(row: dict) -> str:
    load = row.get("load")
    return f" (load {load['mean']:.1f}, at most {load['max']:.1f})" if load else ""


def _pct(x: float | None) -> str:
    """A share to one decimal, rounded down: a score short of every mutant never reads 100 %."""
    return "-" if x is None else f"{math.floor(x * 1000) / 10:.1f}%"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("modules", nargs="*",
                        help=f"of {', '.join(MODULES)}; default: those whose row is out of date (see --all)")
    parser.add_argument("--all", action="store_true", help="every module, whether its row is out of date or not")
    parser.add_argument("--children", type=int, default=2, help="mutants tested in parallel")
    parser.add_argument("--as-before", action="store_true", help="store the result as the 'before' score")
    parser.add_argument("--render-only", action="store_true", help="rewrite mutation.md from mutation.json")
    parser.add_argument("--carry-on", action="store_true",
                        help="carry on in the last run's folder with the current tests: untested mutants and "
                        "survivors are tested (source unchanged)")
    parser.add_argument("--survivors-only", action="store_true",
                        help="with --carry-on: test only the survivors; mutants not yet tested stay untested")
    parser.add_argument("--fork-cost", metavar="MODULE", choices=list(MODULES),
                        help="time one mutant's pytest run in a forked child, the warm-up's objects unfrozen and "
                        "frozen (fastest of --repeats each), and record it in mutation.md")
    parser.add_argument("--repeats", type=int, default=7, help="with --fork-cost: runs of each kind")
    parser.add_argument("--collect-only", action="store_true",
                        help="record what the last run's folder holds, without testing (a run stopped part-way)")
    args = parser.parse_args(argv)
    if unknown := set(args.modules) - set(MODULES):
        parser.error(f"unknown module(s): {', '.join(sorted(unknown))}; known: {', '.join(MODULES)}")
    data = json.loads(JSON.read_text()) if JSON.exists() else {"modules": {}, "before": {}}
    commit = git("rev-parse", "--short", "HEAD") + ("-dirty" if git("status", "--porcelain", "--", "scripts", "tests") else "")
    names = args.modules or list(MODULES)
    if args.fork_cost:
        cost = fork_cost(args.fork_cost, args.repeats)
        cost["commit"] = commit
        print(json.dumps(cost), file=sys.stderr)
        data["fork_cost"] = cost
        JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    if not args.modules and not (args.all or args.carry_on or args.collect_only or args.render_only or args.fork_cost):
        stale = out_of_date(data)
        names = [name for name in MODULES if name in stale]
        current = [name for name in MODULES if name not in stale]
        print(f"current (no file they depend on changed since their row): {', '.join(current) or 'none'}; "
              f"to measure: {', '.join(names) or 'none (--all measures every module)'}", file=sys.stderr)  # fmt: skip
    measuring = not (args.render_only or args.fork_cost or args.collect_only)
    start = time.monotonic()
    if not (args.render_only or args.fork_cost):
        for name in names:
            print(f"{name}: mutating scripts/ablation/{name}.py ...", file=sys.stderr, flush=True)
            if args.collect_only:  # a run stopped part-way: what it has measured ("not checked": not yet tested)
                row = collect(WORK / name, dict(os.environ), None, _stopped_run_seconds(name))
            elif args.carry_on:
                row = carry_on(name, args.children, args.survivors_only)
            else:
                row = run_module(name, MODULES[name], args.children)
            row["commit"] = commit
            row["measured_at"] = datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            data = json.loads(JSON.read_text()) if JSON.exists() else data  # rows another run wrote meanwhile
            data.setdefault("before", {})
            data["before" if args.as_before else "modules"][name] = row
            print(f"{name}: {row['counts']} in {row['seconds']:.0f} s", file=sys.stderr, flush=True)
            JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    if measuring and names:  # this invocation from start to here: the rows' runs and the reading of their results
        data["invocation"] = {"modules": names, "commit": commit, "seconds": round(time.monotonic() - start, 1),
                              "carry_on": args.carry_on}  # fmt: skip
        JSON.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")
    data["modules"] = {k: data["modules"][k] for k in MODULES if k in data["modules"]}
    MD.write_text(render(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())
