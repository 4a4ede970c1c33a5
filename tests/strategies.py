"""Hypothesis strategies several test modules share: query texts mutated from the golden
parse cases (tests/cases/parse.json, parse_errors.json)."""

from __future__ import annotations

import json

from hypothesis import strategies as st

from support import CASES

ACCEPTED = json.loads((CASES / "parse.json").read_text(encoding="utf-8"))
REJECTED = json.loads((CASES / "parse_errors.json").read_text(encoding="utf-8"))
VALID = [c["query"] for c in ACCEPTED] + [c["query"] for c in REJECTED]
ALPHABET = st.sampled_from(list("ab0123456789kKMGBThdw%_-.eE+=<>!(),;\"\\#\n\t ") +
                           ["where", "and", "top", "between", "in", "recommend", "plan",
                            "explain", "\n\n", "GB", "days", "Gb", "/s", " TFLOPS", "TFLOP/s",
                            " PF-days", " billion", " FLOPs", "years"])


@st.composite
def mutated_queries(draw):
    text = draw(st.sampled_from(VALID))
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.sampled_from(["delete", "insert", "swap", "duplicate", "any"]))
        i = draw(st.integers(0, len(text)))
        if op == "delete" and text:
            j = draw(st.integers(i, min(len(text), i + 5)))
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + draw(ALPHABET) + text[i:]
        elif op == "swap" and i + 1 < len(text):
            text = text[:i] + text[i + 1] + text[i] + text[i + 2:]
        elif op == "duplicate":
            j = draw(st.integers(i, min(len(text), i + 12)))
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + draw(st.characters()) + text[i:]
    return text


