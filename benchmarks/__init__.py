"""Benchmarks of recipekg (issue 7): ``python -m benchmarks`` (see benchmarks/run.py).

- :mod:`benchmarks.synthetic`: synthetic KBs shaped like the bundled one, 10K to 1M triples;
- :mod:`benchmarks.run`: the cold, load, warm-query and memory figures, with their targets;
- :mod:`benchmarks.worker`: one measurement in a fresh process.
"""
