"""Text answers fit a screen: the README's example statements print the verdict and the few
lines that decide it (recommend and explain at most 40 lines, plan and recipe at most 60),
and ``--detail`` prints the whole answer, which the golden files hold; nothing is lost."""

from __future__ import annotations

import re

import pytest

from recipekg.render.answers import render_answers
from support import REPO

LIMITS = {"recommend": 40, "explain": 40, "plan": 60, "recipe": 60}


def readme_statements() -> list[str]:
    """Every statement the README runs with ``recipekg query "..."``, ``plan``, ``explain`` or ``recipe``."""
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = re.findall(r'recipekg query "((?:recommend|plan|explain|recipe)[^"]*)"', text)
    for command, rest in re.findall(r"recipekg (plan|recipe|explain) ([^`\n#|]*?)(?:\s+--|\s*`|\s*#|\s*$)", text, re.M):
        if rest.strip() and ("where" in rest or command == "explain"):
            found.append(f"{command} {rest.strip()}")
    placeholders = ("<", "...", "CHOICE")
    return sorted(set(s.strip() for s in found if not any(p in s for p in placeholders) and not s.endswith("=")))


#: The README's examples of errors (a misspelling shown with its suggestions).
ERRORS = ("recommend architecture where data = tabluar", "recommend fix where symptom = slow-divergance")
STATEMENTS = [s for s in readme_statements() if s not in ERRORS]


def test_the_readme_has_examples_of_every_statement(kb):
    assert {s.split()[0] for s in STATEMENTS} == set(LIMITS) and len(STATEMENTS) >= 15
    for statement in ERRORS:
        assert statement in readme_statements()
        with pytest.raises(Exception, match="did you mean"):
            kb.query(statement)


@pytest.mark.parametrize("statement", STATEMENTS)
def test_a_readme_example_fits_a_screen_and_detail_keeps_everything(kb, statement):
    answers = kb.query(statement)
    short = render_answers(answers, "text")
    whole = render_answers(answers, "text", detail=True)
    kind = answers[0]["statement"]
    assert len(short.splitlines()) <= LIMITS[kind], short
    assert short.splitlines()[0] == whole.splitlines()[0]  # the same answer, led by the same line
    assert short == whole or "--detail" in short  # an answer of one line per rule has nothing to fold
    assert "--detail" not in whole and len(whole) >= len(short)
    if kind == "plan" and answers[0].get("summary"):
        assert all(line in short for line in answers[0]["summary"])  # the verdict, whole
    if kind == "recommend" and answers[0]["decision"].get("pick"):
        assert "pick: " in short.split("\n\n")[1]


def test_the_short_plan_names_every_source_the_whole_one_cites(kb):
    (a,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    short = render_answers([a], "text").splitlines()
    cited = next(line for line in short if line.startswith("sources: "))[len("sources: "):].split(", ")
    whole = render_answers([a], "text", detail=True)
    papers = whole[whole.index("\nPapers\n"):]
    assert cited and all(f"  {pid}: " in papers for pid in cited)
    assert all(f"  {q['name']} " in "\n".join(short) for q in a["quantities"] if q["value"] is not None)


@pytest.mark.parametrize("query", [
    "recommend architecture where data = tabular and rows = 30k",
    "recommend approach where data = text and task = generation and params = 7B and gpus = 1 and hardware = rtx-4090",
])
def test_a_result_advised_against_shows_a_rule_against_it_first(kb, query):
    """In the short answer each result shows one rule: for a result the advice weighs against
    (a negative score), a rule against it, never only a rule for it near its threshold."""
    a = kb.query(query)[0]
    against = [r for r in a["results"] if r["score"] < 0 and r["against"]]
    assert against, query
    text = render_answers([a], "text", detail=False)
    shown = [r for r in against if f"({r['id']})  score" in text]
    assert shown, text
    for r in shown:
        block = text.split(f"({r['id']})  score", 1)[1].split("\n")
        assert block[1].lstrip().startswith("−"), (r["id"], block[:3])


def test_a_short_result_shows_what_weighs_against_what_decides_it(kb):
    """A choice that matches with advice for it and advice against it that both apply shows
    both in the short answer (why a full fine-tune for 3K examples scores 0.30 on one 24 GB
    GPU: the memory advice against it), the deciding one first; one with no advice against
    shows one line."""
    text = render_answers(kb.query("recommend approach where data = text and examples = 3k and params = 8B "
                                   "and hardware = rtx-3090 and gpus = 1"), "text", detail=False)
    block = _entry(text, "Full fine-tune (full-fine-tune)")
    lines = _reasons(block)
    assert [line.lstrip()[0] for line in lines] == ["+", "−"] and "memory" in lines[1]
    first = _entry(text, text.split("\n 1. ")[1].split("  score")[0])   # (LoRA: its 16-bit base fits the 3090)
    assert [line.lstrip()[0] for line in _reasons(first)] == ["+"]


def _entry(text: str, head: str) -> str:
    """The entry whose heading names ``head`` (from its score on), up to the next entry or a blank line."""
    lines = text.split(f"{head}  score", 1)[1].split("\n")
    out = []
    for line in lines:
        if not line.strip() or re.match(r"^ ?\d+\. ", line):
            break
        out.append(line)
    return "\n".join(out)


def _reasons(block: str) -> list[str]:
    """A result's reason lines (not what it applies only if: pretrained is not given here)."""
    return [line for line in block.splitlines()[1:] if "applies only if" not in line]


@pytest.mark.parametrize("statement", [
    "explain lora where model = llama-2-13b and hardware = rtx-4090 and samples = 500",
    "explain vit where data = images and samples = 3000",
    "explain gradient-checkpointing where params = 7B and hardware = rtx-4090",
])
def test_a_brief_explain_says_which_rules_wait_for_a_constraint_not_given(kb, statement):
    """A rule that applies on the conditions given, with others not given, is one line of the
    brief explain like a rule that fully applies; the line says what it waits for, as the
    detail's ``not given`` lines do, and a rule that fully applies says nothing of the kind."""
    answer, = kb.query(statement)
    lines = render_answers([answer], "text", detail=False).splitlines()
    for rule in answer["rules"] + answer.get("family_rules", []):
        if not rule["fires"]:
            continue
        line = next(x for x in lines if x.startswith(("FOR", "AGAINST")) and rule["text"] in x)
        waiting = [c["condition"] for c in rule["conditions"] if c["status"] == "not given"]
        if rule["match"] == "partial" and waiting:
            assert f"(waits for: {'; '.join(waiting)}, not given)" in line
        else:
            assert "(waits for:" not in line


@pytest.mark.parametrize("statement, dimension", [
    ("explain lamb where batch-size = 4096 and architecture = transformer", "batch-size"),
    ("explain vit where data = images and samples = 3000", "samples"),
])
def test_an_explain_says_which_condition_of_the_choices_own_rules_fails(kb, statement, dimension):
    """What makes a rule about the explained choice fail is why it does not apply: the constraint
    is used, never listed as unused (LAMB at batch-size = 4096, whose rules need more than 32K),
    and the brief explain names the failing conditions where it counted the rules alone."""
    answer, = kb.query(statement)
    assert dimension not in [u["dimension"] for u in answer["unused"]]
    failed = {c["condition"] for r in answer["rules"] if not r["fires"] and not r.get("near")
              for c in r["conditions"] if c["status"] == "failed" and c["dimension"] == dimension}
    assert failed
    line = next(x for x in render_answers([answer], "text", detail=False).splitlines() if "not apply here" in x)
    assert any(f in line for f in failed), line
