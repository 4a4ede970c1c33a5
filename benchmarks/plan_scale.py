"""``python -m benchmarks.plan_scale``: the layout search costs the same for 8 GPUs and for a
million (issue 22). Each plan is answered warm in one process, several times, interleaved; the
report is the median of each and their ratio to the 8-GPU plan.

    python -m benchmarks.plan_scale            # 8, 1K, 1M, 8M and 100M GPUs of H100, no size given
"""
from __future__ import annotations

import statistics
import sys
import time

GPUS = (8, 1_000, 1_000_000, 8_000_000, 100_000_000)
QUERIES = ("plan where gpus = {n} and hardware = h100",                       # the largest model per method
           "plan where params = 70B and gpus = {n} and hardware = h100")      # one model on every count


def measure(template: str, repeat: int = 7) -> dict[int, float]:
    import recipekg

    kb = recipekg.load()
    times: dict[int, list[float]] = {n: [] for n in GPUS}
    for n in GPUS:  # warm-up: the first answer of each loads the shards it reads
        kb.query(template.format(n=n) + " and seq-length = 2048")
    for i in range(repeat):
        for n in GPUS:
            query = template.format(n=n) + f" and seq-length = {2048 + i}"  # never a cached answer
            t = time.perf_counter()
            kb.query(query)
            times[n].append(time.perf_counter() - t)
    return {n: statistics.median(ts) for n, ts in times.items()}


def main() -> int:
    for template in QUERIES:
        med = measure(template)
        base = med[GPUS[0]]
        print(template.format(n="N"))
        for n, t in med.items():
            print(f"  {n:>12,} GPUs  {t * 1000:8.1f} ms  {t / base:5.2f}× the 8-GPU plan")
    return 0


if __name__ == "__main__":
    sys.exit(main())
