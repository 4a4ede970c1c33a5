"""The picture of an answer: constraints → the rules that fired → the choices, laid out in
three columns (coordinates only; the template draws it as SVG).

    >>> picture = flow([{"dimension": "data"}], ["data = tabular"], [("lightgbm", "LightGBM", [], [])])
    >>> sorted({b["kind"] for b in picture["boxes"]})
    ['choice', 'constraint']
"""

from __future__ import annotations


def flow(constraints: list[dict], labels: list[str], choices: list[tuple], *, top: int = 5,
         per_choice: int = 3, max_rules: int = 12) -> dict:
    """Boxes and edges of the picture constraints → rules → choices, laid out in three
    columns (coordinates only; the template draws it as SVG)."""
    choices = choices[:top]
    rules: dict[str, dict] = {}
    for _, _, because, against in choices:
        for x in because[:per_choice] + against[:per_choice]:
            if len(rules) < max_rules:
                rules.setdefault(x["id"], x)
    pad, gap = 26, 12
    cols = {"constraint": (10, 220), "rule": (290, 330), "choice": (700, 230)}
    items = {"constraint": [(c["dimension"], lab.split(" (from ")[0], lab) for c, lab in zip(constraints, labels)],
             "rule": [(x["id"], human(x["label"] or x["text"]), x["text"] or "") for x in rules.values()],
             "choice": [(cid, label, label) for cid, label, _, _ in choices]}
    items = {k: distinct(v) for k, v in items.items()}
    heights = {k: [box_height(len(wrap(label, cols[k][1]))) for _, label, _ in v] for k, v in items.items()}
    height = pad + 8 + max((sum(h) + gap * len(h) for h in heights.values()), default=0)

    def boxes(kind: str) -> list[dict]:
        x, w = cols[kind]
        y = pad + (height - pad - 8 - sum(heights[kind]) - gap * len(heights[kind])) / 2
        out = []
        for (key, label, title), h in zip(items[kind], heights[kind]):
            out.append({"kind": kind, "key": key, "label": label, "title": title, "x": x, "y": y, "w": w, "h": h,
                        "lines": [{"text": t, "y": y + BASELINE + LINE * i} for i, t in enumerate(wrap(label, w))]})
            y += h + gap
        return out

    cbox, rbox, hbox = boxes("constraint"), boxes("rule"), boxes("choice")
    by_rule = {b["key"]: b for b in rbox}
    edges = []

    def edge(a: dict, b: dict, kind: str):
        x1, y1, x2, y2 = a["x"] + a["w"], a["y"] + a["h"] / 2, b["x"], b["y"] + b["h"] / 2
        mid = (x1 + x2) / 2
        edges.append({"kind": kind, "d": f"M{x1:.0f},{y1:.0f} C{mid:.0f},{y1:.0f} {mid:.0f},{y2:.0f} {x2:.0f},{y2:.0f}"})

    for cb, c in zip(cbox, constraints):  # a derived constraint (tier from gpus and time): a bracket
        for source in cbox:
            if source is not cb and c.get("derived_from") and source["key"] in c["derived_from"].split():
                x, y1, y2 = cb["x"] + cb["w"], source["y"] + source["h"] / 2, cb["y"] + cb["h"] / 2
                edges.append({"kind": "derived", "d": f"M{x:.0f},{y1:.0f} C{x + 40:.0f},{y1:.0f} {x + 40:.0f},{y2:.0f} {x:.0f},{y2:.0f}"})
    for cb in cbox:
        for rid, rb in by_rule.items():
            statuses = {c["status"] for c in rules[rid].get("conditions", []) if c["dimension"] == cb["key"]}
            if statuses & {"held", "partly"}:
                edge(cb, rb, "held" if "held" in statuses else "partly")
    for hb, (_, _, because, against) in zip(hbox, choices):
        for side, reasons in (("because", because), ("against", against)):
            for x in reasons[:per_choice]:
                if x["id"] in by_rule:
                    edge(by_rule[x["id"]], hb, side)
    return {"width": 940, "height": height, "boxes": cbox + rbox + hbox, "edges": edges}


#: Pixels per line and per character of the picture's 12px sans-serif text: a character's
#: width is taken at its widest common size so that a line never runs out of its box.
LINE, CHAR, PAD_X, BASELINE = 15, 6.9, 16, 17


def wrap(text: str, width: float) -> list[str]:
    """``text`` in lines that fit a box ``width`` pixels wide, whole words kept together
    (a word longer than a line is broken); nothing is cut off.

    >>> wrap("Flowchart: images or video under 10K samples → pretrained CNN with a new head", 230)
    ['Flowchart: images or video', 'under 10K samples → pretrained', 'CNN with a new head']
    """
    per_line = max(4, int((width - PAD_X) / CHAR))
    lines: list[str] = []
    for word in str(text).split():
        while len(word) > per_line:
            if lines and len(lines[-1]) + 1 < per_line:
                room = per_line - len(lines[-1]) - 1
                lines[-1] += " " + word[:room]
                word = word[room:]
            else:
                lines.append(word[:per_line])
                word = word[per_line:]
        if lines and len(lines[-1]) + 1 + len(word) <= per_line:
            lines[-1] += " " + word
        elif word:
            lines.append(word)
    return lines or [""]


def distinct(items: list[tuple[str, str, str]]) -> list[tuple[str, str, str]]:
    """Boxes ``(key, label, title)`` whose labels read differently: a label two keys share
    gets its key added (two rules of an extension may carry the same label).

    >>> [label for _, label, _ in distinct([("a", "Same", ""), ("b", "Same", ""), ("c", "Other", "")])]
    ['Same (a)', 'Same (b)', 'Other']
    """
    counts: dict[str, int] = {}
    for _, label, _ in items:
        counts[label] = counts.get(label, 0) + 1
    return [(key, f"{label} ({key})" if counts[label] > 1 else label, title) for key, label, title in items]


def box_height(n_lines: int) -> float:
    """A box's height for ``n_lines`` lines of text."""
    return LINE * n_lines + 9


def human(label: str) -> str:
    """A label as people read it: the KB's ASCII arrows as arrows.

    >>> human("Flowchart: video -> pretrained Video Swin Transformer")
    'Flowchart: video → pretrained Video Swin Transformer'
    """
    return str(label or "").replace(" -> ", " → ").replace("->", "→")
