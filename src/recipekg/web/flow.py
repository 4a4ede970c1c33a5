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
    row, pad = 46, 26
    cols = {"constraint": (10, 220), "rule": (290, 330), "choice": (700, 230)}
    n = max(len(constraints), len(rules), len(choices), 1)
    height = pad + 8 + n * row

    def boxes(kind: str, items: list[tuple[str, str, str]]):
        x, w = cols[kind]
        top_y = pad + (n - len(items)) * row / 2
        return [{"kind": kind, "key": key, "label": label, "title": title, "x": x, "y": top_y + i * row,
                 "w": w, "h": row - 12} for i, (key, label, title) in enumerate(items)]

    cbox = boxes("constraint", [(c["dimension"], lab.split(" (from ")[0], lab) for c, lab in zip(constraints, labels)])
    rbox = boxes("rule", [(x["id"], x["label"] or x["text"], x["text"] or "") for x in rules.values()])
    hbox = boxes("choice", [(cid, label, label) for cid, label, _, _ in choices])
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
