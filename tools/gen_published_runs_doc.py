"""Write docs/published-runs.md: the published-runs table (tests/data/published_runs.tsv) with
plan's figures beside the published ones, the ratio, and why a run differs where it does.

Run after changing the table, the KB or plan, then read the diff; tests/plan/test_published_runs.py
fails while the doc is stale.

    python tools/gen_published_runs_doc.py
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import published_runs  # noqa: E402

DOC = published_runs.REPO / "docs" / "published-runs.md"

HEAD = """\
# Published runs: `plan` against real training runs

`tests/data/published_runs.tsv` holds {runs} published training runs on {hardware}, each with
its source, where in it, and the quote that was checked. `tests/plan/test_published_runs.py` asks
`plan` about every run and checks what the source allows:

- **FLOPs**: plan's training FLOPs within 5% of the FLOPs the paper states (only where it states them);
- **with MFU**: with `mfu = <the run's MFU>` (published, or derived from its published throughput),
  plan's GPU-hours within 10% of the published GPU-hours;
- **range**: without an MFU, the published GPU-hours inside plan's `gpu_hours` low..high;
- **fit**: plan says the run fits on its hardware and GPU count, given the shape, sequence length
  and parallel layout the source states.

Of {total} checks, {agree} agree and {differ} differ; every difference is expected, explained below,
and asserted to still differ (so a change that closes one updates this page). Regenerate with
`python tools/gen_published_runs_doc.py`; the test fails while this page is stale.
"""

FOOT = """\
## A note on the fits

Every run with a GPU count fits, as it did. Where the source states the recomputation (BLOOM's
`--checkpoint-activations`) the row gives it; elsewhere plan chooses. Llama 3.1 405B trained
"without activation checkpointing" on 8,192-token sequences: with plan's default memory-efficient
attention (`attention = flash`, Dao et al.) no score matrix is stored and the run fits with no
recomputation, while `attention = standard` (Korthikanti et al.'s 5as/h term, every score stored)
does not fit 80 GB at TP 8 — `test_a_changed_layout_changes_the_verdict` checks both sides.

## The MFU these runs give plan

These runs (those whose sources the KB holds) are also the evidence of plan's MFU range
(`kb/runs.ttl`): a plan is compared with the runs within a factor of 10 of its size on GPUs of the
same compute (the same dense 16-bit peak, or a GPU the KB states has the same compute: the H200
and the H100), by the MFU their total GPU-hours imply. A run's own hours are therefore
inside the range of its own plan by construction; the checks that are not circular are in
[docs/plan-against-the-world.md](plan-against-the-world.md): each run left out of the evidence in
turn, and runs the KB never saw.

## What the table leaves out

- **GPT-3's GPU-hours.** Patterson et al. (2021) give 14.8 days on 10,000 V100s, but they computed
  those days from the published FLOPs and OpenAI's 24.6 TFLOP/s per GPU ("we used NVIDIA's
  suggestion of 10,000 GPUs"): checking plan against them would check the arithmetic, not plan.
  The row keeps the V100 run's stated FLOPs only.
- **BLOOM's MFU.** The paper's 156 TFLOPs is its fastest configuration and counts recomputation; a
  run MFU from one line of the training log could not be found again in the stored copy, so the row
  has no MFU check, only the range and the fit.
- **Falcon-40B and -7B** (GPU count and layout stated, but only "two months" of wall time),
  **Chinchilla** (Table 3 rows are projections; the 70B run's TPU v3/v4 mix is not one KB device),
  **Gopher and LaMDA** (TPU v3, which the KB does not have), and the **throughput benchmarks**
  (MT-NLG, Megatron-LM, Korthikanti et al., MosaicML's llm-foundry tables: no trained tokens or
  hours) stay in `docs/research/published-runs.json` and out of this table.
- **Mixture-of-experts runs** are left for when plan has active parameters (another branch):
  Mixtral 8x7B's total and active counts are in `docs/research/model-shapes.json`, and Patterson
  et al.'s Table 4 lists GShard-600B and Switch-1500B with chips and days.
- **Parameters** are the papers' own: nominal sizes for Llama 2, Llama 3 and 3.1, Pythia and Falcon,
  the paper's count where it gives one (LLaMA, PaLM, GPT-3). Only stated FLOPs are checked; FLOPs
  computed as 6ND by a third party are not.
"""


def _hours(x: float) -> str:
    return f"{float(f'{x:.3g}'):,.0f}"


def _mark(row: dict, check: str, result: dict) -> str:
    if not result["applies"]:
        return ""
    if check in published_runs.differs(row):
        return " (differs)"
    return " ✓" if result["ok"] else " ✗"


def _layout(row: dict) -> str:
    given = [f"{name} {row[col]}" for col, name in (("tensor_parallel", "TP"), ("pipeline_parallel", "PP"),
             ("zero", "ZeRO"), ("recompute", "recompute"), ("micro_batch", "micro-batch")) if row[col]]
    shape = f"{row['layers']}×{row['hidden']}, {row['heads']} heads" if row["layers"] else ""
    seq = f"seq {row['seq_length']}" if row["seq_length"] else ""
    return "; ".join(part for part in (shape, seq, ", ".join(given)) if part)


def _row(row: dict, res: dict) -> str:
    device = row["hardware"] + (f" × {int(row['gpus']):,}" if row["gpus"] else "")
    flops = (f"{float(row['flops_published']):.3g} / {res['flops']['product']:.3g} "
             f"({res['flops']['ratio']:.3f}){_mark(row, 'flops', res['flops'])}" if res["flops"]["applies"] else "")
    published = f"{float(row['gpu_hours']):,.0f}" if row["gpu_hours"] else ""
    mfu = res["mfu_hours"]
    with_mfu = (f"{_hours(mfu['product'])} at {float(row['mfu']):g} ({mfu['ratio']:.2f}){_mark(row, 'mfu_hours', mfu)}"
                if mfu["applies"] else "")
    span = res["range"]
    within = (f"{_hours(span['low'])}–{_hours(span['high'])}{_mark(row, 'range', span)}" if span["applies"] else "")
    implied = f"{res['implied_mfu']:.3f}" if "implied_mfu" in res else ""
    fit = ("fits" if res["fit"]["ok"] else "does not fit") + _mark(row, "fit", res["fit"]) if res["fit"]["applies"] else ""
    cells = (row["id"], device, flops, published, with_mfu, within, implied, fit, row["source"])
    return "| " + " | ".join(cells) + " |"


def _details(rows: list[dict], results: list[dict]) -> list[str]:
    out = ["## Where plan and the published figure differ, and why", ""]
    for row, res in zip(rows, results):
        for check in sorted(published_runs.differs(row)):
            out.append(f"- **{row['id']}** ({check}): {row['why']}.")
    out += ["", "## Each run's figures: what is stated and what is derived", "",
            "| run | GPU-hours | MFU | shape and layout given to plan | where |", "|---|---|---|---|---|"]
    for row in rows:
        out.append(f"| {row['id']} | {row['gpu_hours_basis']} | {row['mfu_basis']} | {_layout(row)} | {row['where']} |")
    out += ["", "## Fit verdicts", ""]
    for row, res in zip(rows, results):
        if res["fit"]["applies"]:
            out.append(f"- **{row['id']}**: {res['fit']['text']}")
    return out + [""]


def render(rows: list[dict], results: list[dict]) -> str:
    """The page for the table's rows and their ``published_runs.evaluate`` results."""
    verdicts = [(check in published_runs.differs(row), res[check]["ok"])
                for row, res in zip(rows, results) for check in published_runs.checks(row)]
    hardware = sorted({row["hardware"] for row in rows})
    head = HEAD.format(runs=len(rows), hardware=", ".join(f"`{h}`" for h in hardware), total=len(verdicts),
                       agree=sum(ok for _, ok in verdicts), differ=sum(not ok for _, ok in verdicts))
    table = ["## The runs", "",
             "Ratios are plan's figure over the published one. ✓ agrees within the tolerance; (differs) is an "
             "expected difference, explained in the next section. *Implied MFU* is the MFU the published "
             "GPU-hours imply on plan's peak for the device.", "",
             "| run | hardware × GPUs | FLOPs: stated / plan (ratio) | GPU-hours published | plan with the run's MFU (ratio) "
             "| plan's range, no MFU | implied MFU | fit | source |",
             "|---|---|---|---|---|---|---|---|---|"]
    table += [_row(row, res) for row, res in zip(rows, results)]
    return "\n".join([head, *table, "", *_details(rows, results), FOOT])


def main() -> int:
    import recipekg

    kb = recipekg.load()

    def run(query: str) -> dict:
        (answer,) = kb.query(query)
        return answer
    rows = published_runs.load()
    DOC.write_text(render(rows, [published_runs.evaluate(run, row) for row in rows]), encoding="utf-8")
    print(f"wrote {DOC.relative_to(published_runs.REPO)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
