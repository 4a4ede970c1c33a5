"""Benchmarks of recipekg (issues 7 and 16): ``python -m benchmarks`` (see benchmarks/run.py).

- :mod:`benchmarks.synthetic`: synthetic KBs shaped like the bundled one, 10K to 1M triples;
- :mod:`benchmarks.run`: the cold, load, warm-query, memory and web figures, with their targets;
- :mod:`benchmarks.cold`: whole-process timings, interleaved, medians;
- :mod:`benchmarks.web`: ``recipekg serve`` under 16 client threads;
- :mod:`benchmarks.report`: the printed tables and targets;
- :mod:`benchmarks.worker`: one measurement in a fresh process.
"""
