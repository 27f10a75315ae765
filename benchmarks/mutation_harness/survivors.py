"""The surviving mutants mutation.md does not count as bugs the tests miss: EQUIVALENT (no behaviour
tells them from the original) and LEFT_ALONE (a free choice no test should pin), each with its reason."""

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
_SORTED_SEEDS = "measures.seed_means returns each cell's seeds sorted and distinct: the argsort is the identity whatever its kind or dtype"
_LOO_NEVER_RAISES = ("unreachable: leaving one seed out raises only when a 'where' value or a level occurs in that seed alone, "
                     "and then the claim rests on at most one seed (n < 2: no leave-one-out)")
_N_CELLS_UNREAD = "nothing reads the n_cells entry of _claim_p's result"
_TEXTS = ("the leave-one-seed-out and the without-diverged evaluations read only the brackets and n, which _claim_p "
          "computes with the texts too (or with texts=None, falsy, without them)")  # fmt: skip
_STRICTLY_BELOW = "inside this branch one bracket lies strictly below the other, so s1 == c0 cannot happen: < and <= agree"
# stats
_POSITIVE_STEPS = "_band_area keeps only steps of height > 0 (np.where(heights > 0, ...)): without the clip at 0 a negative height adds -0.0 instead of 0.0, the same sum"
_ZERO_HEIGHT = "the heights are clipped to [0, 1], so a height that is not positive is 0: the stand-in width, 0.0 or 1.0, times 0 is 0"
_ONE_KEY = "with family: config every claim takes this one key and none takes a study's name: any constant groups them the same"
_EXACT_HOLM = "holm is None only for an exact claim, whose verdict alone (its certificate's) reads neither factor nor floor"
_ROW_KEY_NAN = "a key left out of the row is NaN in the table (its columns are CLAIM_COLUMNS): the value given"
_SOME_RUN = "select raises on a selection without runs, so the certificate's gaps hold at least one value: max needs no initial"
EQUIVALENT: dict[str, str] = {
    # verdicts: one claim's test and verdict
    **{f"ablation.verdicts.x_certificate__mutmut_{n}": "zip stops at the shortest slice: the two slices left still name at most 5 runs"
       for n in (60, 61, 62)},
    "ablation.verdicts.x_certificate__mutmut_84": ("np.max reads initial=None as no initial; select refuses an empty selection and each "
                                                   "gap is a largest absolute logit difference (>= 0): the same largest gap"),
    "ablation.verdicts.x_certificate__mutmut_86": ("select refuses an empty selection, so the gaps are never empty, and each is a largest "
                                                   "absolute logit difference (>= 0): their max with or without initial 0.0 is the same"),
    **{f"ablation.verdicts.x_claim_test__mutmut_{n}": ("Result.seeds is read only by robustness (claims, scope, adaptive), whose share "
       "of leave-one-seed-out repeats does not depend on the seeds' order; they share the summary's seed column type, so sorting "
       "them without a key never fails") for n in (47, 49)},
    **{f"ablation.verdicts.x_combine__mutmut_{n}": _NUMERIC_INPUT for n in (3, 5, 7, 9)},
    "ablation.verdicts.x_combine__mutmut_20": ("a cell's p_con capped at 2 instead of 1 differs only above 1: below 1 the minimum and its "
                                               "cell are the same, and where the minimum is 1 or more the claim's p_con is 1 either way, "
                                               "never below its p_sup, so the deciding cell is argmax(p_sup) in both"),
    "ablation.verdicts.x_futility__mutmut_22": ("every step futility gets has a finite factor >= 1 (Holm's m - rank, 1 / a graph weight <= 1, "
                                                "adaptive's undecided count >= 1, HolmStep()'s 1), so the condition holds anyway"),
    "ablation.verdicts.x_futility__mutmut_24": ("a step's factor is >= 1 or inf, never NaN or <= 0: for a finite one both conditions hold, "
                                                "and for inf alpha / inf is 0.0, the else value"),
    "ablation.verdicts.x_futility__mutmut_26": ("a step's factor is never 0 (Holm's m - rank >= 1, 1 / a weight <= 1, the undecided count "
                                                ">= 1, HolmStep()'s 1): > 0 and >= 0 agree"),
    **{f"ablation.verdicts.x_holm_steps__mutmut_{n}": _NUMERIC_INPUT for n in (3, 5)},
    "ablation.verdicts.x_holm_steps__mutmut_13": _KIND_CASE,
    "ablation.verdicts.x_p_values__mutmut_3": ("condition_p uses the bounds only for estimand mean (the share tests ignore them), and "
                                               "check_claims refuses estimand mean for a claim of unbounded parts: computing them anyway changes no p"),
    **{f"ablation.verdicts.x_reachable__mutmut_{n}": ("claim_cells gives every claim at least one cell (select refuses an empty "
       "selection; a part without strata is one cell), so n_more is never empty and min's default is never used") for n in (14, 16, 17)},
    "ablation.verdicts.x_robustness__mutmut_18": "numpy gives NaN for the mean of no values too (with a RuntimeWarning): without seeds the share is NaN either way",
    "ablation.verdicts.x_robustness__mutmut_23": _NAN_TEXT,
    "ablation.verdicts.x_seeds_to_decide__mutmut_17": "decided reads only the step's factor and floor: the adjusted p of the step it builds is never read",
    **{f"ablation.verdicts.x_seeds_to_decide__mutmut_{n}": "decided reads only the step's factor and floor: the size of the step it builds is never read"
       for n in (18, 21, 22)},
    # scope: where a verdict holds
    **{f"ablation.scope.x__typed__mutmut_{n}": reason for n, reason in (
        (4, "lstrip(None) after strip() differs only on text cells of negative whole numbers (float instead of int), which "
            "same_value compares equal below 2**53; no setting takes a negative value (each numeric setting has minimum 0 or "
            "1, lr exclusiveMinimum 0), so no level or summary cell is one"),
        (5, "rstrip('-') differs only on text cells of negative whole numbers (float instead of int; a trailing '-' fails "
            "int() as it fails float()), which same_value compares equal below 2**53; no setting takes a negative value"),
        (6, "a text cell whose digits follow X's reaches int() with its X's still in it: int raises ValueError as float "
            "does, and the cell comes back as text either way"))},
    **{f"ablation.scope.x__typed__mutmut_{n}": ("_typed's non-text cells are Python scalars already (iterating a pandas "
       "Series yields them) except _own_value's iloc[0], a numpy int64 or float64 that same_value compares as its .item() "
       "(== and str agree); only a numpy bool would differ, and no setting is boolean") for n in (8, 10, 14, 15)},
    **{f"ablation.scope.x_universe_runs__mutmut_{n}": ("the list holds one bool (or numpy bool) from same_value per row of "
       "a scope summary that is not empty (an empty one fails above), and numpy infers dtype bool for it") for n in (45, 47)},
    **{f"ablation.scope.x_table_rows__mutmut_{n}": ("every Result in a Scope comes from verdicts.claim_test, which raises "
       "without a cell (its n is a min over the cells) and gives one evidence entry per cell: result.evidence is never "
       "empty, so its empty defaults are never written") for n in (16, 64, 67)},
    "ablation.scope.xǁScopeǁdetail__mutmut_51": ("a ROBUST scope has the same verdict in every universe (judge_scope sets "
                                                 "each to the verdict), so parts holds one phrase and the separator is never written"),
    # seedtests: the tests a claim's seeds are put to
    **{f"ablation.seedtests.x_mean_p__mutmut_{n}": ("lo and hi are read only for their shape and passed to sequential.directional_p, "
                                                     "which converts them to float itself (_scale): asarray without dtype gives the same p-values") for n in (3, 5, 7, 9)},
    **{f"ablation.seedtests.x_share_p_sequential__mutmut_{n}": ("sure and possible are only reordered and passed to sequential.directional_p, "
                                                                 "which converts them to float itself (_scale): asarray without dtype gives the same p-values") for n in (9, 11, 13, 15)},
    **{f"ablation.seedtests.x_share_p__mutmut_{n}": ("callers pass the counts as Python ints (plan, effects) or int64 sums of boolean arrays (condition_p), "
                                                      "never unsigned: k - 1, n > 0 and scipy's binom read them as the same floats") for n in (3, 5)},
    "ablation.seedtests.x_share_p__mutmut_13": "at n = 0 the counts are 0 too (k <= n for every caller), and binom.sf(-1, 0, share) is 1.0: the where's own value",
    "ablation.seedtests.x_share_p__mutmut_31": "at n = 0 the counts are 0 too (k <= n for every caller), and binom.cdf(0, 0, share) is 1.0: the where's own value",
    "ablation.seedtests.x_share_p__mutmut_23": "the minimum with 1.0 on return turns the 2.0 into 1.0",
    "ablation.seedtests.x_share_p__mutmut_39": "the minimum with 1.0 on return turns the 2.0 into 1.0",
    "ablation.seedtests.x_share_p__mutmut_44": "p_sup is binom.sf or 1.0, a probability, at most 1: min with 2.0 or 1.0 is the same",
    "ablation.seedtests.x_share_p__mutmut_49": "p_con is binom.cdf or 1.0, a probability, at most 1: min with 2.0 or 1.0 is the same",
    "ablation.seedtests.x_share_p_sequential__mutmut_35": "np.argsort's default axis is -1, the last",
    "ablation.seedtests.x_share_p_sequential__mutmut_41": _KIND_CASE,
    **{f"ablation.seedtests.x_share_p_sequential__mutmut_{n}": "np.take_along_axis's default axis is -1 (numpy 2.3 on; the project pins numpy 2.4.6)"
       for n in (49, 69, 95, 116, 139, 149)},
    **{f"ablation.seedtests.x_share_p_sequential__mutmut_{n}": ("r is never empty here (no seeds return earlier), so np.max "
       "needs no initial value") for n in (74, 76)},
    **{f"ablation.seedtests.x_share_p_sequential__mutmut_{n}": ("the skipped seeds' round only has to follow every counted "
       "seed's round, and max(r, 1) + 1 or max(r) + 2 does as max(r) + 1 does") for n in (77, 78)},
    **{f"ablation.seedtests.x__shapiro_p__mutmut_{n}": "scipy's shapiro returns its p as a float64 already" for n in (16, 18)},
    **{f"ablation.seedtests.x__shapiro_p__mutmut_{n}": ("scipy's shapiro gives p = 1.0 for seeds of range zero and a finite p "
       "for any other finite seeds, and seed units are finite (a diverged run's are its interval's ends): the where "
       "never replaces a value") for n in (27, 32)},
    "ablation.seedtests.x__shapiro_p__mutmut_8": _WARNINGS,
    "ablation.seedtests.x__t_p__mutmut_11": _WARNINGS,
    **{f"ablation.seedtests.x_condition_p__mutmut_{n}": ("condition_p compares test only with 'betting': any other default "
       "takes the t-test, as 't' does (the schema's enum refuses any test outside TESTS)") for n in (1, 2)},
    **{f"ablation.seedtests.x_condition_p__mutmut_{n}": ("every reader of lo and hi converts them itself (Condition's "
       "comparisons, mean_t_p, mean_p, normality): asarray without dtype gives the same p-values") for n in (5, 7, 9, 11)},
    **{f"ablation.seedtests.x_condition_p__mutmut_{n}": ("rounds are read only for their order and equality (lexsort in "
       "in_round_order, round_ends): whole numbers as ints or floats give the same looks") for n in (26, 28, 30, 32)},
    **{f"ablation.seedtests.x_mean_t_p__mutmut_{n}": _NUMERIC_INPUT for n in (3, 5, 7, 9)},
    **{f"ablation.seedtests.x_mean_t_p__mutmut_{n}": ("rounds are read only for their order and equality (lexsort in "
       "in_round_order): zeros as ints or floats sort the same") for n in (23, 25)},
    "ablation.seedtests.x_mean_t_p__mutmut_92": ("best_con starts at 1 and keeps the minimum: a p_con above 1 never enters it, "
                                                 "capped at 1 or 2"),
    **{f"ablation.seedtests.x_normality__mutmut_{n}": _NUMERIC_INPUT for n in (3, 5, 7, 9)},
    "ablation.seedtests.x_normality__mutmut_43": "the edge is read only where bounds are given",
    **{f"ablation.seedtests.x_normality__mutmut_{n}": ("np.where reads float zeros as False, as it reads boolean ones") for n in (62, 64)},
    **{f"ablation.seedtests.x_normality_words__mutmut_{n}": ("normality converts lo and hi itself, and the words read only sums "
       "and comparisons of them: asarray without dtype gives the same words") for n in (3, 5, 7, 9)},
    "ablation.intervals.x_direction_share_ci__mutmut_12": _NAN_TEXT,
    "ablation.intervals.x_direction_share_ci__mutmut_15": _NAN_TEXT,
    "ablation.intervals.x_skew_t_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.intervals.x_skew_t_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.intervals.x_skew_t_ci__mutmut_19": _ERRSTATE,
    "ablation.intervals.x_skew_t_ci__mutmut_20": _ERRSTATE,
    "ablation.intervals.x_skew_t_ci__mutmut_21": _ERRSTATE,
    "ablation.intervals.x_skew_t_ci__mutmut_22": _ERRSTATE,
    "ablation.intervals.x_skew_t_ci__mutmut_44": _SE_ZERO,
    "ablation.intervals.x_skew_t_ci__mutmut_64": _SAFE,
    "ablation.intervals.x_skew_t_ci__mutmut_70": _SAFE,
    "ablation.intervals.x_tango_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.intervals.x_tango_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.intervals.x_tango_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.intervals.x_tango_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.intervals.x_tango_ci__mutmut_87": _ERRSTATE,
    "ablation.intervals.x_tango_ci__mutmut_88": _ERRSTATE,
    "ablation.intervals.x_tango_ci__mutmut_89": _ERRSTATE,
    "ablation.intervals.x_tango_ci__mutmut_90": _ERRSTATE,
    "ablation.intervals.x_tango_ci__mutmut_96": _BISECTION_60,
    "ablation.intervals.x_tango_ci__mutmut_110": _SIDE,
    "ablation.intervals.x_tango_ci__mutmut_111": _SIDE,
    "ablation.intervals.x_tango_ci__mutmut_113": _BISECTION_60,
    "ablation.intervals.x_tango_ci__mutmut_129": _EST_SIDE,
    **{f"ablation.stats.x_paired_comparisons__mutmut_{n}": _NAN_TEXT for n in (167, 173, 179, 189, 195, 203, 259, 273)},
    "ablation.stats.x_paired_comparisons__mutmut_163": _NAN_EMPTY,
    "ablation.stats.x_paired_comparisons__mutmut_218": "a comparison with NaN is False, never NaN: the boolean column has nothing to fill",
    **{f"ablation.stats.x_paired_comparisons__mutmut_{n}": ("the seed differences are quantized to dstep: none lies in "
                                                             "(dstep / 3, dstep / 2], none at dstep / 2 itself") for n in (81, 83, 85, 88)},
    "ablation.stats.x__main_effects_core__mutmut_113": _DEFAULT_METRIC,
    "ablation.stats.x__main_effects_core__mutmut_129": _QUANTIZED,
    "ablation.stats.x__main_effects_core__mutmut_250": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_258": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_261": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_268": _LEXSORT,
    "ablation.stats.x__main_effects_core__mutmut_269": _LEXSORT,
    "ablation.intervals.x_anderson_ci__mutmut_11": _NUMERIC_INPUT,
    "ablation.intervals.x_anderson_ci__mutmut_9": _NUMERIC_INPUT,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_16": _ERRSTATE,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_17": _ERRSTATE,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_18": _ERRSTATE,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_19": _ERRSTATE,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.significance.x_cohen_dz__mutmut_3": _NUMERIC_INPUT,
    "ablation.significance.x_cohen_dz__mutmut_5": _NUMERIC_INPUT,
    "ablation.measures.x_converged_mask__mutmut_22": _ERRSTATE,
    "ablation.intervals.x_mean_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.intervals.x_mean_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.intervals.x_mean_cis__mutmut_6": _NUMERIC_INPUT,
    "ablation.intervals.x_mean_cis__mutmut_8": _NUMERIC_INPUT,
    "ablation.measures.x_quantize__mutmut_3": _NUMERIC_INPUT,
    "ablation.measures.x_quantize__mutmut_5": _NUMERIC_INPUT,
    "ablation.measures.x_run_accuracy__mutmut_24": _ERRSTATE,
    "ablation.measures.x_run_accuracy__mutmut_25": _ERRSTATE,
    "ablation.measures.x_run_accuracy__mutmut_26": _ERRSTATE,
    "ablation.measures.x_run_accuracy__mutmut_27": _ERRSTATE,
    "ablation.measures.x_seed_means__mutmut_4": _NUMERIC_INPUT,
    "ablation.measures.x_seed_means__mutmut_6": _NUMERIC_INPUT,
    "ablation.significance.x_sign_flip_test__mutmut_10": _NUMERIC_INPUT,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_107": _BATCH,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_164": _METHOD_CASE,
    "ablation.stats.x_cell_table__mutmut_171": _DEFAULT_METRIC,
    "ablation.variance.x_interactions__mutmut_111": _KIND_CASE,
    "ablation.stats.x_marginal_means__mutmut_1": _NO_BOOT_COLUMN,
    "ablation.variance.x_seed_variance__mutmut_104": _REML,
    "ablation.variance.x_seed_variance__mutmut_76": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_78": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_125": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_127": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_167": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_169": _ROW_COLUMNS,
    "ablation.variance.x_seed_variance__mutmut_30": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_31": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_32": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_33": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_46": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_47": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_48": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_49": _ROW_KEY,
    "ablation.variance.x_seed_variance__mutmut_84": _BOOL_DUMMIES,
    "ablation.variance.x_seed_variance__mutmut_87": _BOOL_DUMMIES,
    "ablation.measures.x__cells__mutmut_3": _KEYS_INDEX,
    "ablation.measures.x__cells__mutmut_5": _NO_FACTOR_CODES,
    "ablation.measures.x__cells__mutmut_7": _NO_FACTOR_CODES,
    "ablation.measures.x__cells__mutmut_11": _DROPNA_NONE,
    "ablation.stats.x__main_effects_core__mutmut_63": _NO_FACTOR_BOOT,
    "ablation.intervals.x_anderson_ci__mutmut_6": _AXIS_1,
    "ablation.intervals.x_anderson_ci__mutmut_45": _AXIS_1,
    "ablation.intervals.x_anderson_ci__mutmut_62": _UPPER_CLIP,
    "ablation.intervals.x_anderson_ci__mutmut_70": _UPPER_CLIP,
    "ablation.intervals.x_anderson_ci__mutmut_87": _UPPER_CLIP,
    "ablation.intervals.x_anderson_ci__mutmut_93": _UPPER_CLIP,
    "ablation.intervals.x_anderson_ci__mutmut_61": _POSITIVE_STEPS,
    "ablation.intervals.x_anderson_ci__mutmut_86": _POSITIVE_STEPS,
    "ablation.intervals.x__band_area__mutmut_11": _ZERO_HEIGHT,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_90": _VECTORIZED,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_95": _VECTORIZED,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_100": _VECTORIZED,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_92": _BATCH,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_97": _BATCH,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_105": _BATCH,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_108": _BATCH,
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_149": _BOTH_NAN,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_44": _COUNT_GUARD,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_72": _COUNT_GUARD,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_49": _K_EQUALS_N,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_55": _K_EQUALS_N,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_56": _CLIPPED_TO_1,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_74": _IN_UNIT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_75": _IN_UNIT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_80": _IN_UNIT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_82": _IN_UNIT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_83": _IN_UNIT,
    "ablation.intervals.x_clopper_pearson_ci__mutmut_88": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_73": _CLIPPED_TO_1,
    "ablation.intervals.x_wilson_ci__mutmut_76": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_77": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_82": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_84": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_85": _IN_UNIT,
    "ablation.intervals.x_wilson_ci__mutmut_90": _IN_UNIT,
    "ablation.variance.x_interactions__mutmut_34": _TABLE_ORDER,
    "ablation.variance.x_interactions__mutmut_36": _TABLE_ORDER,
    "ablation.variance.x_interactions__mutmut_37": _TABLE_ORDER,
    "ablation.stats.x_paired_comparisons__mutmut_126": _NAN_EMPTY,
    "ablation.measures.x_run_accuracy__mutmut_37": _ZERO_TOTAL,
    "ablation.significance.x_sign_flip_test__mutmut_43": _QUANTIZED_BAR,
    "ablation.significance.x_sign_flip_test__mutmut_46": _QUANTIZED_BAR,
    "ablation.significance.x_sign_flip_test__mutmut_48": _QUANTIZED_BAR,
    "ablation.significance.x_sign_flip_test__mutmut_80": _BATCH,
    "ablation.significance.x_sign_flip_test__mutmut_12": _NUMERIC_INPUT,
    "ablation.intervals.x_t_mean_ci__mutmut_5": _NUMERIC_INPUT,
    "ablation.intervals.x_t_mean_ci__mutmut_7": _NUMERIC_INPUT,
    "ablation.intervals.x_wilson_ci__mutmut_10": _NUMERIC_INPUT,
    "ablation.intervals.x_wilson_ci__mutmut_17": _ERRSTATE,
    "ablation.intervals.x_wilson_ci__mutmut_18": _ERRSTATE,
    "ablation.intervals.x_wilson_ci__mutmut_19": _ERRSTATE,
    "ablation.intervals.x_wilson_ci__mutmut_20": _ERRSTATE,
    "ablation.intervals.x_wilson_ci__mutmut_4": _NUMERIC_INPUT,
    "ablation.intervals.x_wilson_ci__mutmut_6": _NUMERIC_INPUT,
    "ablation.intervals.x_wilson_ci__mutmut_8": _NUMERIC_INPUT,
    "ablation.measures.x__split__mutmut_7": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.measures.x__split__mutmut_15": "the extra bound is never read: cells run over range(n_cells)",
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
    "ablation.significance.x_holm__mutmut_3": "the p-values are floats already (NaN for none), so asarray without dtype gives the same array",
    "ablation.significance.x_holm__mutmut_5": "the p-values are floats already (NaN for none), so asarray without dtype gives the same array",
    "ablation.significance.x_holm__mutmut_19": "tied p-values get the same adjusted p in any order (the running maximum takes the larger multiplier for both)",
    "ablation.significance.x_holm__mutmut_21": "tied p-values get the same adjusted p in any order (the running maximum takes the larger multiplier for both)",
    "ablation.significance.x_holm__mutmut_23": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.measures.x_seed_means__mutmut_20": "inverse takes every value 0..len(ids)-1, so bincount is that long without minlength",
    "ablation.measures.x_seed_means__mutmut_27": "inverse takes every value 0..len(ids)-1, so bincount is that long without minlength",
    "ablation.significance.x_reachable_p__mutmut_2": "n_nonzero is never negative; at 0 the formula gives min(1, 2) = 1, the else value",
    "ablation.significance.x_reachable_p__mutmut_18": "n_nonzero is never negative; at 0 the formula gives min(1, 2) = 1, the else value",
    "ablation.significance.x_reachable_p__mutmut_19": "at n_nonzero = 1 the formula gives 2 ** 0 = 1, the else value",
    "ablation.significance.x_reachable_p__mutmut_8": "2 ** (1 - n) <= 1 for every n >= 1: the cap at 1 or 2 never binds",
    "ablation.significance.x_reachable_p__mutmut_17": "2 ** -1099 and 2 ** -1100 both underflow to 0.0",
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_98": "Y is 2-D (samples, n): axis +1 is axis -1",
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_125": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_126": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.intervals.x_bootstrap_mean_ci__mutmut_128": "scipy.stats.bootstrap lower-cases the method name",
    "ablation.significance.x_cohen_dz__mutmut_10": _NAN_TEXT,
    "ablation.significance.x_cohen_dz__mutmut_24": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_130": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_140": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_146": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_154": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_210": _NAN_TEXT,
    "ablation.stats.x_paired_comparisons__mutmut_224": _NAN_TEXT,
    "ablation.stats.x_pair_frame__mutmut_15": _DROPNA_NONE,
    "ablation.stats.x_pair_frame__mutmut_16": _NGROUP_OBSERVED,
    "ablation.stats.x_pair_frame__mutmut_18": _DEFAULT_SORT,
    "ablation.stats.x_pair_frame__mutmut_20": _NGROUP_OBSERVED,
    "ablation.stats.x_pair_frame__mutmut_23": _NGROUP_OBSERVED,
    "ablation.stats.x_pair_frame__mutmut_44": _UNIQUE_CODES,
    "ablation.stats.x_pair_frame__mutmut_48": _UNIQUE_CODES,
    "ablation.stats.x_pair_frame__mutmut_50": _UNIQUE_CODES,
    "ablation.stats.x_pair_frame__mutmut_62": _FLOAT_VALUES,
    "ablation.stats.x_pair_frame__mutmut_64": _FLOAT_VALUES,
    "ablation.stats.x_pair_frame__mutmut_67": _FLOAT_VALUES,
    "ablation.stats.x_pair_frame__mutmut_69": _FLOAT_VALUES,
    "ablation.stats.x__main_effects_core__mutmut_42": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.stats.x__main_effects_core__mutmut_45": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.stats.x__main_effects_core__mutmut_46": "every cell's level is one of its factor's levels: the fill value is always overwritten",
    "ablation.measures.x__cells__mutmut_13": _DEFAULT_SORT,
    "ablation.stats.x_paired_comparisons__mutmut_16": "resolution's default metric is test_acc",
    "ablation.stats.x_paired_comparisons__mutmut_48": "with no matched pair the step meets only empty arrays (sign_flip_test returns early, mean_ci gives NaN)",
    "ablation.stats.x_paired_comparisons__mutmut_73": _QUANTIZED,
    "ablation.stats.x_paired_comparisons__mutmut_169": "p_holm < alpha is False, never NaN, for a NaN p: fillna has nothing to fill",
    "ablation.stats.x_paired_comparisons__mutmut_175": "p_holm < alpha is False, never NaN, for a NaN p: fillna has nothing to fill",
    "ablation.significance.x_mde__mutmut_2": "with n < 2 a t quantile of n - 1 <= 0 degrees of freedom is NaN, and a NaN sd gives NaN: the early return changes nothing",
    "ablation.claims.x__combine__mutmut_8": ("a cell whose Bonferroni p is 1 or more makes the claim's p_con 1 either way (the outer cap), "
                                             "and the cell shown is then the largest p_sup's (p_con < p_sup cannot hold)"),
    "ablation.claims.x__family_key__mutmut_8": _ONE_KEY,
    "ablation.claims.x__family_key__mutmut_9": _ONE_KEY,
    "ablation.claims.x__grown__mutmut_1": "nothing reads a grown cell's label: seeds_to_decide and reachable read its p-values only",
    "ablation.claims.x__row__mutmut_9": _EXACT_HOLM,
    "ablation.claims.x__row__mutmut_10": _EXACT_HOLM,
    "ablation.claims.x__row__mutmut_102": _SEED_ORDER,
    "ablation.claims.x__row__mutmut_104": _SEED_ORDER,
    "ablation.claims.x_claim_test__mutmut_84": _SEED_ORDER,
    "ablation.claims.x_claim_test__mutmut_86": _SEED_ORDER,
    **{f"ablation.claims.x__row__mutmut_{n}": _LOO_NEVER_RAISES for n in (328, 329, 330)},
    "ablation.claims.x__row__mutmut_342": _NAN_TEXT,
    "ablation.claims.x__row__mutmut_56": "certificate, called just above on the same selection, raises naming the claim first",
    "ablation.claims.x__row__mutmut_85": _ROW_KEY_NAN,
    "ablation.claims.x__row__mutmut_86": _ROW_KEY_NAN,
    "ablation.claims.x__share_ci__mutmut_7": "proportion_ci's default method is 'exact'",
    **{f"ablation.claims.x_certificate__mutmut_{n}": "zip stops at the shortest: the other two lists still hold five" for n in (64, 65, 66)},
    "ablation.claims.x_certificate__mutmut_88": _SOME_RUN,
    "ablation.claims.x_certificate__mutmut_90": _SOME_RUN,
    **{f"ablation.claims.x_evaluate_family__mutmut_{n}": ("_row reads r only for a claim that is not exact, and claim_test on an exact "
                                                          "claim's runs raises nothing certificate's selection does not") for n in (17, 19, 20, 21)},
    "ablation.claims.x_holm_steps__mutmut_13": _KIND_CASE,
    "ablation.claims.x_holm_steps__mutmut_3": _NUMERIC_INPUT,
    "ablation.claims.x_holm_steps__mutmut_5": _NUMERIC_INPUT,
    **{f"ablation.claims.x_reachable__mutmut_{n}": "cells_of gives at least one cell (select raises on a selection without runs): min's default is never read" for n in (26, 28, 29)},
    "ablation.claims.x_main__mutmut_20": _STR_PATH,
    "ablation.claims.x_main__mutmut_25": _STR_PATH,
    "ablation.claims.x_main__mutmut_36": _STR_PATH,
    "ablation.claims.x_main__mutmut_41": _STR_PATH,
    "ablation.claims.x_main__mutmut_62": _STR_PATH,
    "ablation.claims.x_main__mutmut_65": _STR_PATH,
    "ablation.claims.x_evaluate_family__mutmut_60": "stats.holm of no p-value is the empty array, raw itself",
    "ablation.claims.x_evaluate_family__mutmut_68": "numpy reads the sort kind by its first letter, case-insensitively: 'STABLE' is 'stable'",
    "ablation.claims.x_evaluate_family__mutmut_90": "a floor of 1 or more exceeds alpha (< 1, schema) either way: INCONCLUSIVE, capped at 1 or at 2",
    "ablation.measures.x_metric_values__mutmut_11": "astype(None) is astype(float64)",
    "ablation.stats.x_stability_table__mutmut_55": _RESET_INDEX,
    "ablation.stats.x_stability_table__mutmut_56": _RESET_INDEX,
    "ablation.stats.x_cell_table__mutmut_203": _RESET_INDEX,
    "ablation.stats.x_cell_table__mutmut_204": _RESET_INDEX,
    "ablation.stats.x_pair_runs__mutmut_24": "pair_frame returns the values as float arrays whatever their dtype",
    "ablation.stats.x_pair_runs__mutmut_26": "pair_frame returns the values as float arrays whatever their dtype",
    "ablation.significance.x_mde__mutmut_9": _NAN_TEXT,
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
    "ablation.config.x__validate__mutmut_50": "study names are ASCII (the schema's pattern): upper- and lower-casing fold the same names together",
    **{f"ablation.config.x_family_size__mutmut_{n}": "family_size reads only whether family is 'config': any other default string means the study" for n in (1, 2)},
    **{f"ablation.config.x_family_size__mutmut_{n}": "a claim without 'exact' is not exact: not None, like not False, is True" for n in (12, 14)},
    "ablation.config.x__validate__mutmut_113": _BEST_MATCH,
    "ablation.config.x__validate__mutmut_114": _BEST_MATCH,
    "ablation.validation.x__schema_error_line__mutmut_89": _BEST_MATCH,
    "ablation.validation.x__schema_error_line__mutmut_90": _BEST_MATCH,
    **{f"ablation.validation.x__schema_error_line__mutmut_{n}": _FALLBACK for n in range(219, 224)},
    "ablation.sequential.x_claim_p__mutmut_16": "claim_p_path uses x only through directional_p, whose _scale converts it with np.asarray(x, dtype=float) itself: the same float64 values for any real-valued input",
    "ablation.sequential.x_claim_p__mutmut_18": "claim_p_path uses x only through directional_p, whose _scale converts it with np.asarray(x, dtype=float) itself: the same float64 values for any real-valued input",
    "ablation.sequential.x_reachable__mutmut_22": "for a one-sided claim the added value (lo + hi) / 2 is the boundary itself: its seeds leave the capital unchanged (z == m), so its p is the history's p, which the range-end extensions already reach or beat (running maxima)",
    "ablation.sequential.x_reachable__mutmut_31": "the extended cells go to claim_p, which converts them with np.asarray(dtype=float): for real-valued input the concatenation with the float fill gives the same float64 values",
    "ablation.sequential.x_reachable__mutmut_33": "the extended cells go to claim_p, which converts them with np.asarray(dtype=float): for real-valued input the concatenation with the float fill gives the same float64 values",
    "ablation.sequential.x__p__mutmut_5": "log_capital returns running maxima that include log K_0 = 0: exp(-log_k) is at most 1, so a cap at 1 or at 2 never acts",
    **{f"ablation.sequential.x_log_capital__mutmut_{n}": "np.logaddexp.reduce's default axis is 0, the axis given" for n in (64, 72)},
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
    # seed_units: a claim's cells and each seed's unit in them
    **{f"ablation.seed_units.x__mask__mutmut_{n}": ("a numeric results column (int64, float64, or the nullable Int64/Float64 that "
       "read_csv gives) yields the same float64 values, NaN where missing, with or without dtype=float or na_value, and "
       "np.isclose casts integers to float64 itself") for n in (21, 22, 23, 24)},
    **{f"ablation.seed_units.x__mask__mutmut_{n}": "str(True) is 'True' and str(False) is 'False': the fallback str(v) gives the same text"
       for n in (38, 45)},
    "ablation.seed_units.x__mask__mutmut_51": "v is True is taken by the first branch, and str(False) is 'False': the same text",
    "ablation.seed_units.x__part_values__mutmut_21": ("slopes returns a float64 Series, so the mapped slopes (NaN for a run "
                                                      "without one) are float64 with or without dtype=float"),
    **{f"ablation.seed_units.x__part_values__mutmut_{n}": ("the fourth value (runs without a value) is read only in part_cells' "
       "slope branch; a metric part never reads it") for n in (61, 73)},
    "ablation.seed_units.x__seed_cells__mutmut_5": _DROPNA_NONE,
    "ablation.seed_units.x__seed_cells__mutmut_23": _DEFAULT_SORT,
    **{f"ablation.seed_units.x_length_means__mutmut_{n}": "math.lcm(*xs) equals math.lcm(*xs, 1), and math.lcm() with no argument is 1"
       for n in (81, 85)},
    "ablation.seed_units.x_length_means__mutmut_97": ("the per-run means are a float64 groupby mean (NaN where masked, an empty "
                                                      "one too), so map gives float64 with or without dtype=float"),
    **{f"ablation.seed_units.x_part_cells__mutmut_{n}": _LEVEL_FROM_COLUMN for n in (19, 20, 33, 34)},
    "ablation.seed_units.x_slopes__mutmut_8": ("to_numeric gives int64 or float64 (a nullable column's to_numpy gives float64 "
                                               "too); isfinite, > 0 and np.log give the same values for either"),
    "ablation.seed_units.x_slopes__mutmut_35": "norm[ok] holds only positive finite values, so np.log never divides by zero and errstate changes nothing",
    "ablation.seed_units.x_slopes__mutmut_109": "the quotient is float64 already, and pandas reads astype(None) as float64",
    # claims: the command and the family over a study's claims
    **{f"ablation.claims.x_main__mutmut_{n}": _STR_PATH for n in (51, 56, 96, 99, 104, 107, 115, 118)},
    "ablation.claims.x__row__mutmut_29": "certificate, called just above on the same selection, raises naming the claim first",
    **{f"ablation.claims.x__row__mutmut_{n}": _ROW_KEY_NAN for n in (53, 54)},
    **{f"ablation.claims.x__row__mutmut_{n}": ("split(': ') and split(': ', 2) give the same first piece as split(': ', 1): "
       "the text before the first ': '") for n in (70, 73)},
    "ablation.claims.x__row__mutmut_131": _NAN_TEXT,
    **{f"ablation.claims.x__scope_columns__mutmut_{n}": _ROW_KEY_NAN for n in (5, 6)},
    **{f"ablation.claims.x_evaluate_all__mutmut_{n}": "the family's key only groups its claims: nothing reads the string itself"
       for n in (28, 29)},
    **{f"ablation.claims.x_evaluate_all__mutmut_{n}": _EXACT_HOLM for n in (81, 83)},
    "ablation.claims.x_evaluate_claims__mutmut_16": ("runs.name is read only by family_name, where None and '' both give 'these "
                                                     "claims', and by the study column, which evaluate_claims drops"),
    "ablation.claims.x_main__mutmut_197": "nothing reads the scope runs' name: each universe's rows take the study's name",
    **{f"ablation.claims.x_main__mutmut_{n}": ("scope.universe_runs replaces the scope runs' design with the study's own "
       "(runs.design) before any test reads it") for n in (201, 226, 227, 228)},
    "ablation.claims.x_main__mutmut_202": ("scope.universe_runs replaces the scope runs' claims with the study's own "
                                           "(runs.claims) before any test reads them"),
    # kinds: what a claim states and the keys it reads
    **{f"ablation.kinds.xǁComparisonǁ{name}__mutmut_{n}": ("the default is read only when the claim has no ties key, "
       "and None, 'XXcountXX' and 'COUNT' differ from 'exclude' just as 'count' does")
       for name, ns in (("parts", (11, 13, 16, 17)), ("ties_rule", (2, 4, 7, 8))) for n in ns},
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
