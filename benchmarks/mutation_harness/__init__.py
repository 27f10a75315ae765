"""The mutation harness that benchmarks/mutation.py runs (`make mutation`), one idea per module.

modules: the modules measured, their tests and goals, and when a row is out of date (the files it depends on).
survivors: the surviving mutants that no test can or should kill, each with its reason.
runs: a module's scratch folder, `mutmut run` in it (fresh or carrying on) and the reading of its results.
fork_cost: what one mutant's forked pytest run costs, with the fork server's warm-up frozen and not.
render: mutation.md from mutation.json.
"""
