"""The benchmark harness's sections (benchmarks/run.py runs them): one module each."""
