"""A ``recipe`` answer as text or Markdown: what it settled on first (and plan's warnings),
then each section's items (value, why, sources), what is unsourced, and the configurations it
can be written as.
Without ``detail`` (the command line's default) each item is one line, its value and its
sources' ids; ``detail`` adds why, the other published values and the sources' roles.

    >>> a, = kb.query("recipe where data = tabular and rows = 30k")
    >>> print(render_recipe(a, md=False).splitlines()[2])
    context: architecture gradient-boosted-trees (recommend architecture), fitted by boosting
"""

from __future__ import annotations

from recipekg.render.constraints import constraint_line, no_advice_lines
from recipekg.render.situation import unused_lines
from recipekg.render.sources import origin_text, sources_short
from recipekg.render.tables import table


def render_recipe(a: dict, md: bool, detail: bool = True) -> str:
    head = f"recipe — {a['query']}"
    out = [f"## {head}" if md else head, f"constraints: {constraint_line(a['constraints'])}",
           f"context: {_context(a['context'])}", *no_advice_lines(a["constraints"])]
    out += unused_lines(a.get("unused", ()), md)
    out += [f"{'> **Warning:** ' if md else '! '}{w['text']}" for w in (a.get("plan") or {}).get("warnings") or ()]
    for section in a["sections"]:
        if not section["items"]:
            continue
        if not (md or detail):  # one line per item (the choices named alone on one), a section of one line on it
            lines = _section_brief(section["items"])
            out += [f"{section['name']} — {lines[0].strip()}"] if len(lines) == 1 else [section["name"], *lines]
            continue
        out += ["", f"### {section['name']}" if md else section["name"]]
        out += _items_md(section["items"]) if md else [line for it in section["items"] for line in _item_text(it)]
    out += _closing(a, md or detail)
    if not (md or detail):
        out.append("more: --detail (why each item, the other published values, the sources' roles), "
                   "--format json (every field, and plan's whole answer)")
    return "\n".join(out)


def _section_brief(items: list[dict]) -> list[str]:
    """A section's items a line each, but the choices it only names (a technique to switch on:
    its text is its name, no value, nothing to flag) together on the first of them.

    >>> named = lambda n: {"what": n, "text": n, "sources": [{"id": n.lower()}]}
    >>> _section_brief([named("Pre-norm"), {"what": "max norm", "text": "1", "sources": []}, named("QK-norm")])
    ['  Pre-norm, QK-norm [pre-norm, qk-norm]', '  max norm: 1']
    """
    plain = [it for it in items if it["what"].lower() == it["text"].lower() and not it.get("unsourced")
             and not it.get("needs") and not it.get("alternatives") and not it.get("origin")]
    if len(plain) < 2:
        return [line for it in items for line in _item_brief(it)]
    ids = ", ".join(dict.fromkeys(s["id"] for it in plain for s in it["sources"]))
    joined = f"  {', '.join(it['text'] for it in plain)}" + (f" [{ids}]" if ids else "")
    out, placed = [], False
    for it in items:
        if it in plain:
            out += [] if placed else [joined]
            placed = True
        else:
            out += _item_brief(it)
    return out


def apart_text(apart: dict) -> str:
    """What an item's coupled values say of it: not published with them.

    >>> apart_text({"from": ["lora-alpha", "lora-rank"], "labels": ["LoRA alpha", "LoRA rank"], "sources": ["hu2021"]})
    'not published with the LoRA alpha and LoRA rank here (those come from hu2021): no one run set these together'
    """
    names = apart["labels"]
    named = ", ".join(names[:-1]) + " and " + names[-1] if len(names) > 1 else names[0]
    return (f"not published with the {named} here (those come from {', '.join(apart['sources'])}): "
            "no one run set these together")


def _item_brief(it: dict) -> list[str]:
    flag = ("  [unsourced]" if it.get("unsourced") else "  [give more]" if it.get("needs")
            else "  [not published with the others: --detail]" if it.get("apart") else "")
    ids = ", ".join(dict.fromkeys(s["id"] for s in it["sources"]))
    n = len(it.get("alternatives") or ())
    also = f" ({n} more published value{'s' * (n > 1)}{_theirs(it, ', one from {}')}: --detail)" if n else ""
    what = "" if it["what"].lower() == it["text"].lower() else f"{it['what']}: "  # 'bf16 training: bf16 training'
    return [f"  {what}{it['text']}{flag}{also}" + (f" [{ids}]" if ids else "") + _own(it, "  [{}]")]


def _context(c: dict) -> str:
    parts = [f"architecture {c['architecture'] or 'none'} ({c['architecture_from']})"]
    if c["regimes"]:
        parts.append("fitted by " + ", ".join(r.replace("-", " ") for r in c["regimes"]))
    if c["method"]:
        parts.append(f"method {c['method']} ({c['method_from']})")
    if c.get("optimizer"):
        parts.append(f"optimizer {c['optimizer']}")
    return ", ".join(parts)


def _item_text(it: dict) -> list[str]:
    flag = "  [unsourced]" if it.get("unsourced") else "  [give more]" if it.get("needs") else ""
    lines = [f"  {it['what']}: {it['text']}{flag}{_own(it, '  [{}]')}"]
    if it.get("why"):
        lines.append(f"      {it['why']}")
    if it.get("caveat"):
        lines.append(f"      caveat: {it['caveat']}")
    if it.get("apart"):
        lines.append(f"      {apart_text(it['apart'])}")
    if it.get("alternatives"):
        lines.append("      also published: " + "; ".join(f"{x['text']} [{sources_short(x['sources'])}]{_own(x, ' ({})')}"
                                                      for x in it["alternatives"]))
    if it["sources"]:
        lines.append(f"      sources: {sources_short(it['sources'])}")
    return lines


def _own(it: dict, form: str) -> str:
    """Where an extension gave an item (its file and line), in ``form``; '' for the KB's own."""
    return form.format(f"{origin_text(it)}, not the KB's") if it.get("origin") else ""


def _theirs(it: dict, form: str) -> str:
    """Where an extension gave one of an item's other published values, in ``form``; '' if none did."""
    return next((_own(x, form) for x in it.get("alternatives") or () if x.get("origin")), "")


def _items_md(items: list[dict]) -> list[str]:
    rows = [(it["what"], it["text"] + (" *(unsourced)*" if it.get("unsourced") else "")
             + _own(it, " *({})*") + _theirs(it, " *(another published value: {})*"),
             (it.get("why") or "") + (f" *Caveat: {it['caveat']}*" if it.get("caveat") else "")
             + (f" *({apart_text(it['apart'])})*" if it.get("apart") else ""),
             sources_short(it["sources"])) for it in items]
    return table(["item", "value", "why", "sources"], rows, md=True)


#: How many of its rankings' questions a short recipe shows (the rest: --detail).
BRIEF_ASKS = 2


def _closing(a: dict, whole: bool = True) -> list[str]:
    missing = [it["what"] for s in a["sections"] for it in s["items"] if it.get("unsourced")]
    asks = a.get("ask") or ()
    shown = asks if whole or len(asks) <= BRIEF_ASKS + 1 else asks[:BRIEF_ASKS]
    out = [""] + [f"? {', '.join(q['kinds'])}: {q['text']}" + (f" [{origin_text(q)}]" if q.get("origin") else "")
                  for q in shown]
    if len(shown) < len(asks):
        out.append(f"? and {len(asks) - len(shown)} more questions that would settle a choice: --detail")
    if missing:
        out.append(f"unsourced ({len(missing)}): " + ", ".join(missing) + " — the KB has no sourced value; set them "
                   "from your own tuning")
    if a["configs"]:
        formats = ", ".join(a["configs"])
        notes = sum(len(c["notes"]) for c in a["configs"].values())
        theirs = sorted({o["file"] for c in a["configs"].values() for o in c.get("origins") or ()})
        out.append(f"configurations: {formats} (recipekg query \"{a['query']}\" --emit FORMAT -o FILE)"
                   + ("" if whole or not notes else f"; what they leave out or assume: {notes} notes, --detail")
                   + (f"; they read what the extension {', '.join(theirs)} gave or ruled out, not the KB" if theirs else ""))
        for name, c in a["configs"].items() if whole else ():
            out += [f"  {name}: {n}" for n in c["notes"]]
    else:
        by_reason: dict[str, list[str]] = {}
        for name, reason in (a.get("no_configs") or {}).items():
            by_reason.setdefault(reason, []).append(name)
        why = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in by_reason.items())
        out.append("configurations: none" + (f" ({why})" if why else " (nothing a trainer's configuration could hold)"))
    return out
