"""The benchmark harness that benchmarks/run.py runs (`make bench`).

Sections, imported by run.py, one module each: e2e (1 and 2), training (3), scale (4), levers (5);
common (paths, measuring a command, the benchmark configs) and report (goals, checks, results.md from
results.md.j2). Workers, each run by a section in a fresh process so that its start-up costs are
measured as a job's: naive.py (the lesson's loop; its variants in naive.yaml), speed.py (section 3),
synth.py (section 4's synthetic runs), probe.py (section 5's in-process costs). bench.yaml is
section 1's config.
"""
