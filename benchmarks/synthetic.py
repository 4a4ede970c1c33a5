"""Synthetic knowledge bases shaped like the bundled one, at any size, as Turtle extensions.

    python -m benchmarks.synthetic --triples 100000 -o /tmp/synthetic-100k.ttl
    recipekg query --kb /tmp/synthetic-100k.ttl "recommend architecture where data = syn-data-7"

The file extends the bundled KB (``--kb``), so a KB of N triples is the bundled ~6K plus
N - 6K synthetic ones. It is made of *topics*, each like one section of the reference:

- a section (``sec:syn-*``, part of a synthetic chapter) and two papers citing it;
- values of the real categorical dimensions (a data modality, a task, a failure mode),
  each narrower than a group value (``skos:broader``: a taxonomy three levels deep);
- choices of every kind (three architectures under a synthetic architecture family, an
  optimizer, an approach, a technique, a fix), with aliases, definitions, original papers;
- conditions on those values, and shared threshold conditions on the real numeric
  dimensions (``samples``, ``params``, ``gpus``, ``time``);
- eight rules, each recommending or advising against choices under one or two conditions,
  with a strength, a section and one or two papers, some contradicting another.

Like the real KB, every rule has a condition that lists values (its topic's data, task or
symptom) and most add a numeric one. So a query about the bundled KB's values (``data =
tabular``) engages no synthetic rule, and a query about a topic engages that topic's rules:
what a query costs depends on the rules that match it, not on the size of the KB.

Valid for ``recipekg validate`` (SHACL and the structural checks): every node labelled and
described, labels unique per class, every rule and fact sourced to a paper of this file,
no blank nodes, conditions within their dimension's vocabulary.
"""

from __future__ import annotations

import argparse
import os

PREFIXES = """\
@prefix rkg:     <https://w3id.org/recipekg/ns#> .
@prefix kb:      <https://w3id.org/recipekg/id/> .
@prefix rule:    <https://w3id.org/recipekg/rule/> .
@prefix cond:    <https://w3id.org/recipekg/cond/> .
@prefix dim:     <https://w3id.org/recipekg/dim/> .
@prefix paper:   <https://w3id.org/recipekg/paper/> .
@prefix sec:     <https://w3id.org/recipekg/section/> .
@prefix rdfs:    <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd:     <http://www.w3.org/2001/XMLSchema#> .
@prefix skos:    <http://www.w3.org/2004/02/skos/core#> .
@prefix prov:    <http://www.w3.org/ns/prov#> .
@prefix dcterms: <http://purl.org/dc/terms/> .
@prefix fabio:   <http://purl.org/spar/fabio/> .
"""

#: Topics per group (the broader value of a topic's data modality, task and failure mode).
GROUP = 8
#: Shared numeric threshold conditions: (dimension, bounds), as the reference's tables have.
THRESHOLDS = {
    "samples": [1e3, 1e4, 1e5, 1e6, 1e7],
    "params": [1e8, 1e9, 1e10, 1e11],
    "gpus": [1.0, 8.0, 64.0, 512.0],
    "time": [24.0, 168.0, 720.0],
}
STRENGTHS = ("rkg:strong", "rkg:moderate", "rkg:weak")
BUNDLED_TRIPLES = 5940  # about; the generator counts its own triples exactly


class _Writer:
    """Turtle subject blocks, counting triples."""

    def __init__(self, out) -> None:
        self.out = out
        self.triples = 0

    def block(self, subject: str, *pairs: tuple[str, list[str] | str]) -> None:
        lines = []
        for p, objects in pairs:
            objects = [objects] if isinstance(objects, str) else list(objects)
            if not objects:
                continue
            self.triples += len(objects)
            lines.append(f"{p} {', '.join(objects)}")
        self.out.write(f"{subject} " + " ;\n    ".join(lines) + " .\n\n")


def _s(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _d(x: float) -> str:
    return f'"{x!r}"^^xsd:double'


def _threshold_conditions(w: _Writer) -> dict[str, list[str]]:
    """Shared conditions per numeric dimension: below the first bound, between consecutive
    bounds, from the last one on."""
    out: dict[str, list[str]] = {}
    for dim, bounds in THRESHOLDS.items():
        names = []
        edges = [None, *bounds, None]
        for low, high in zip(edges, edges[1:]):
            name = f"cond:syn-{dim}-{'lo' if low is None else f'{low:g}'}-{'hi' if high is None else f'{high:g}'}"
            name = name.replace("+", "")
            label = (f"{dim} < {high:g}" if low is None else f"{dim} >= {low:g}" if high is None
                     else f"{dim} {low:g}-{high:g}")
            w.block(name, ("a", "rkg:Condition"), ("rdfs:label", _s(f"synthetic {label}")),
                    ("rkg:dimension", f"dim:{dim}"),
                    ("rkg:minInclusive", [] if low is None else _d(low)),
                    ("rkg:maxExclusive", [] if high is None else _d(high)))
            names.append(name)
        out[dim] = names
    return out


def _group(w: _Writer, g: int) -> None:
    """The broader values of a group of topics, an architecture family and a group condition."""
    w.block(f"kb:syn-data-g{g}", ("a", "rkg:DataModality"), ("rdfs:label", _s(f"synthetic data group {g}")),
            ("skos:notation", _s(f"syn-data-g{g}")))
    w.block(f"kb:syn-task-g{g}", ("a", "rkg:Task"), ("rdfs:label", _s(f"synthetic task group {g}")),
            ("skos:notation", _s(f"syn-task-g{g}")))
    w.block(f"kb:syn-failure-g{g}", ("a", "rkg:FailureMode"), ("rdfs:label", _s(f"synthetic failure group {g}")),
            ("skos:notation", _s(f"syn-failure-g{g}")))
    w.block(f"kb:syn-family-g{g}", ("a", "rkg:ArchitectureFamily"),
            ("rdfs:label", _s(f"Synthetic architecture family {g}")),
            ("skos:notation", _s(f"syn-family-g{g}")),
            ("skos:definition", _s(f"The family of the synthetic architectures of topic group {g}.")))
    w.block(f"cond:syn-data-g{g}", ("a", "rkg:Condition"), ("rdfs:label", _s(f"data = syn-data-g{g}")),
            ("rkg:dimension", "dim:data"), ("rkg:value", f"kb:syn-data-g{g}"))


def _topic(w: _Writer, t: int, grid: dict[str, list[str]]) -> None:
    g = t // GROUP
    sec, pa, pb = f"sec:syn-{t}", f"paper:syn{t}a", f"paper:syn{t}b"
    w.block(sec, ("a", "rkg:Section"), ("rdfs:label", _s(f"Synthetic > Topic {t}")),
            ("rkg:path", _s(f"Synthetic > Topic {t}")), ("rkg:order", str(1000 + t)),
            ("dcterms:isPartOf", "sec:syn"))
    for paper, n in ((pa, 2 * t), (pb, 2 * t + 1)):
        arxiv = f"24{n // 100000 % 100:02d}.{n % 100000:05d}"
        w.block(paper, ("a", ["rkg:Paper", "fabio:ResearchPaper"]),
                ("rdfs:label", _s(f"Synthetic study number {n}")),
                ("dcterms:title", _s(f"Synthetic study number {n}")),
                ("rkg:key", _s(paper.split(":")[1])), ("rkg:authors", _s(f"Author{n} et al.")),
                ("dcterms:issued", '"2024"^^xsd:gYear'),
                ("rkg:url", f'"https://arxiv.org/abs/{arxiv}"^^xsd:anyURI'), ("rkg:arxiv", _s(arxiv)),
                ("rkg:section", sec))
    # values of the real categorical dimensions, narrower than their group's
    for cls, what in (("rkg:DataModality", "data"), ("rkg:Task", "task"), ("rkg:FailureMode", "failure")):
        w.block(f"kb:syn-{what}-{t}", ("a", cls), ("rdfs:label", _s(f"synthetic {what} {t}")),
                ("skos:notation", _s(f"syn-{what}-{t}")), ("skos:altLabel", _s(f"s{what}{t}")),
                ("skos:broader", f"kb:syn-{what}-g{g}"),
                *((("prov:wasDerivedFrom", pa),) if what == "failure" else ()))
    # choices of every kind
    choices = {}
    for i in range(3):
        choices[f"arch{i}"] = f"kb:syn-arch-{t}-{i}"
        w.block(choices[f"arch{i}"], ("a", "rkg:Architecture"),
                ("rdfs:label", _s(f"Synthetic architecture {t}.{i}")),
                ("skos:notation", _s(f"syn-arch-{t}-{i}")), ("skos:altLabel", _s(f"sarch{t}x{i}")),
                ("skos:broader", f"kb:syn-family-g{g}"),
                ("skos:definition", _s(f"Architecture {i} of synthetic topic {t}.")),
                ("rkg:originalPaper", pa if i % 2 == 0 else pb))
    for kind, cls in (("opt", "rkg:Optimizer"), ("appr", "rkg:Approach"), ("tech", "rkg:Technique"),
                      ("fix", "rkg:Fix")):
        choices[kind] = f"kb:syn-{kind}-{t}"
        w.block(choices[kind], ("a", cls), ("rdfs:label", _s(f"Synthetic {cls[4:].lower()} {t}")),
                ("skos:notation", _s(f"syn-{kind}-{t}")),
                ("skos:definition", _s(f"The {cls[4:].lower()} of synthetic topic {t}.")),
                ("rkg:originalPaper", pb))
    # conditions on the topic's values
    cd, ct, cf = f"cond:syn-data-{t}", f"cond:syn-task-{t}", f"cond:syn-failure-{t}"
    for name, dim, value in ((cd, "data", f"kb:syn-data-{t}"), (ct, "task", f"kb:syn-task-{t}"),
                             (cf, "symptom", f"kb:syn-failure-{t}")):
        w.block(name, ("a", "rkg:Condition"), ("rdfs:label", _s(f"{dim} = {value[3:]}")),
                ("rkg:dimension", f"dim:{dim}"), ("rkg:value", value))
    samples, params, gpus, time = (grid[d] for d in ("samples", "params", "gpus", "time"))
    rules = [  # (recommends, against, conditions)
        ([choices["arch0"], choices["arch1"]], [], [cd, samples[t % len(samples)]]),
        ([choices["arch2"]], [choices["arch0"]], [cd, samples[(t + 3) % len(samples)]]),
        ([choices["arch1"], f"kb:syn-family-g{g}"], [], [f"cond:syn-data-g{g}", ct]),
        ([choices["opt"]], [], [cd, params[t % len(params)]]),
        ([choices["appr"]], [], [cd, gpus[t % len(gpus)]]),
        ([choices["tech"], choices["appr"]], [], [ct, time[t % len(time)]]),
        ([choices["fix"], choices["tech"]], [], [cf]),
        ([choices["tech"]], [choices["appr"]], [cd]),
    ]
    for i, (recommends, against, conds) in enumerate(rules):
        name = f"rule:syn-{t}-{i}"
        w.block(name, ("a", "rkg:Rule"), ("rdfs:label", _s(f"Synthetic rule {t}.{i}")),
                ("rkg:text", _s(f"Synthetic topic {t}, rule {i}: under these conditions prefer "
                                f"{', '.join(r[3:] for r in recommends)}.")),
                ("rkg:recommends", recommends), ("rkg:advisesAgainst", against),
                ("rkg:condition", conds), ("rkg:strength", STRENGTHS[(t + i) % 3]),
                ("rkg:section", sec), ("prov:wasDerivedFrom", [pa] if i % 2 else [pa, pb]),
                ("rkg:contradicts", [f"rule:syn-{t}-0"] if i == 1 and t % 10 == 0 else []))


def generate(path: str, triples: int, *, bundled: int = BUNDLED_TRIPLES) -> int:
    """Write a synthetic extension so that the bundled KB plus it hold about ``triples``
    triples; returns the number of triples written."""
    target = max(0, triples - bundled)
    tmp = f"{path}.tmp{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as out:
        out.write("# Synthetic recipekg extension (benchmarks/synthetic.py); do not edit.\n")
        out.write(PREFIXES + "\n")
        w = _Writer(out)
        w.block("sec:syn", ("a", "rkg:Section"), ("rdfs:label", _s("Synthetic")),
                ("rkg:path", _s("Synthetic")), ("rkg:order", "1000"),
                ("dcterms:isPartOf", "kb:reference"))
        grid = _threshold_conditions(w)
        t = 0
        while w.triples < target or t == 0:
            if t % GROUP == 0:
                _group(w, t // GROUP)
            _topic(w, t, grid)
            t += 1
    os.replace(tmp, path)
    return w.triples


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--triples", type=float, required=True, help="size of bundled KB + extension")
    ap.add_argument("-o", "--output", required=True)
    args = ap.parse_args(argv)
    n = generate(args.output, int(args.triples))
    print(f"wrote {n} triples to {args.output}")


if __name__ == "__main__":
    main()
