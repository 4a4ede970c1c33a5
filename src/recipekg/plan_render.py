"""Render a ``plan`` answer as text or Markdown: the quantities with readable units, each
with its formula and sources, then fit, what to do if it does not fit, feasibility, the
compute tier's advice, bandwidth, warnings and notes, and the papers cited.

    >>> print(render_plan(answer, md=False))                    # doctest: +SKIP
    plan — params = 7B and hardware = h100 and gpus = 8
    ...
      tokens        140B tokens   (reference table: 140B tokens)
    ...
"""

from __future__ import annotations

from . import units


def render_plan(a: dict, md: bool) -> str:
    out: list[str] = []
    papers: dict[str, dict] = {}

    def cite(sources) -> str:
        for s in sources or []:
            papers.setdefault(s["id"], s)
        return ", ".join(s["id"] for s in sources or [])

    def head(text: str) -> None:
        out.extend(["", f"### {text}"] if md else ["", text, "-" * min(len(text), 80)])

    def item(text: str, indent: int = 1) -> None:
        out.append(("  " * (indent - 1) + "- " + text) if md else ("  " * indent + text))

    from .render import _constraint_line

    out.append(f"## plan — {_query(a)}" if md else f"plan — {_query(a)}")
    out.append(f"constraints: {_constraint_line(a)}")
    s = a.get("strategy")
    if s:
        ratio = s["tokens_per_param"]
        shown = (units.amount(ratio["low"], ratio["high"], "tokens/param") if ratio["low"] is not None
                 else units.amount(ratio["value"], unit="tokens/param"))
        out.append(f"strategy: {s['label']} ({shown}) — {s['why']}"
                   + (f" [{cite([p for r in s['because'] for p in r['sources']])}]" if s["because"] else ""))
    if a.get("summary"):
        out.append("")
        out.append("**In short**" if md else "in short:")
        for line in a["summary"]:
            item(line)

    # ------------------------------------------------------------------ quantities
    head("Quantities")
    quantities = a["quantities"]
    if md:
        out += ["", "| quantity | value | how | formula | sources |", "|---|---|---|---|---|"]
        for q in quantities:
            formula = f"`{q['formula']['expression']}` ({q['formula']['id']})" if q["formula"] else ""
            how = _md(q["derivation"]) + _table_note(q)
            out.append(f"| {q['name']} | **{_value(q)}** | {how} | {formula} | "
                       f"{cite(q['sources'])}{' — ' + q['section'] if q.get('section') else ''} |")
            for p in q.get("parts", []):
                out.append(f"| ↳ {p['label']} | {_value(p)} | {_md(p['derivation'])} | "
                           f"`{'`, `'.join(c['symbol'] for c in p['constants'])}` | {cite(p['sources'])} |")
    else:
        width = max(len(q["name"]) for q in quantities) + 2
        for q in quantities:
            pad = " " * (2 + width)
            out.append(f"  {q['name']:<{width}}{_value(q)}{_table_note(q)}")
            if q["derivation"]:
                out.append(pad + q["derivation"])
            if q["formula"] and q["value"] is not None:
                out.append(pad + f"formula {q['formula']['id']}: {q['formula']['expression']}")
            if q["sources"] or q.get("section"):
                out.append(pad + "sources: " + (cite(q["sources"]) or "—")
                           + (f" · {q['section']}" if q.get("section") else ""))
            parts = q.get("parts", [])
            if parts:
                pw = max(len(p["label"]) for p in parts) + 2
                out.append(pad + "breakdown (" + q["parts"][0]["formula"]["id"] + "):")
                for p in parts:
                    bpp = p["bytes_per_param"]
                    out.append(pad + f"  {p['label']:<{pw}}{_value(p):<14}"
                                     f"{units.amount(bpp['low'], bpp['high'], 'bytes/param')}"
                                     f"  [{cite(p['sources'])}]")
                total = q.get("parts_sum")
                if total:
                    out.append(pad + f"  {'sum':<{pw}}{units.amount(total['low'], total['high'], 'bytes'):<14}"
                                     f"{units.amount(total['bytes_per_param']['low'], total['bytes_per_param']['high'], 'bytes/param')}")

    # ------------------------------------------------------------------ fit
    fit = a.get("fit")
    if fit:
        hw = fit["hardware"]["label"] if fit.get("hardware") else "GPU"
        cap = fit["memory_per_gpu"]
        gpus = fit["gpus"]
        head(f"Fit on {units.grouped(gpus)} × {hw} ({_bytes(cap)} each"
             + (f", {_bytes(fit['memory_total'])} in all" if gpus and gpus > 1 else "") + ")")
        item(f"verdict: {fit['text']}")
        item(fit["replicated"]["text"])
        if fit.get("sharded"):
            item(fit["sharded"]["text"])
    recs = a.get("recommendations") or []
    if recs:
        head("If it does not fit: what each memory saving brings")
        for r in recs:
            enough = ("" if r["enough"] is None or r["id"] == "combined" else
                      " — enough on its own" if r["enough"] else " — not enough on its own")
            item(f"{r['label']}: {r['text']}{enough}" + (f" [{cite(r['sources'])}]" if r["sources"] else ""))
            for x in r["rules"][:1]:
                item(f"rule ({x['strength']}): {x['text']} ({x['section']})", 3 if md else 3)
    feas = a.get("feasibility") or []
    if feas:
        head(f"Feasibility on {a['hardware']['label']}")
        for r in feas:
            side = "against: " if r["advises_against"] and not r["recommends"] else ""
            item(f"{side}[{r['strength']}] {r['text']} ({r['section']}; {cite(r['sources'])})")

    # ------------------------------------------------------------------ tier, bandwidth
    tier = a.get("tier")
    if tier:
        head("Compute tier")
        item(tier["text"])
        for r in tier["advice"]:
            sign = "−" if r["advises_against"] and not r["recommends"] else "+"
            item(f"{sign} [{r['strength']}] {r['text']} [{cite(r['sources'])}]", 2)
    bw = a.get("bandwidth")
    if bw:
        head("Bandwidth")
        item(bw["text"] + (f" [{cite(bw['sources'])}]" if bw.get("sources") else ""))

    # ------------------------------------------------------------------ warnings, notes, papers
    if a.get("warnings"):
        head("Warnings")
        for w in a["warnings"]:
            item(f"! {w['text']}" + (f" [{cite(w['sources'])}]" if w.get("sources") else ""))
    if a.get("notes"):
        head("Notes")
        for n in a["notes"]:
            item(n["text"] + (f" [{cite(n['sources'])}]" if n.get("sources") else ""))
    for q in quantities:
        for t in (q.get("table") or {},):
            cite(t.get("sources"))
    if papers:
        head("Papers")
        for pid, p in sorted(papers.items()):
            where = f"arXiv:{p['arxiv']}" if p.get("arxiv") else p.get("url") or ""
            year = f" ({p['year']})" if p.get("year") else ""
            item(f"{pid}: {p['title']}{year} {where}".rstrip())
    return "\n".join(out)


def _query(a: dict) -> str:
    q = a.get("query", "plan")
    return q[5:].removeprefix("where ").strip() if q.lower().startswith("plan ") else "(no constraints)"


def _bytes(q: dict) -> str:
    return units.amount(q["low"], q["high"], "bytes") if q["low"] != q["high"] else units.amount(q["value"], unit="bytes")


def _value(q: dict) -> str:
    """A quantity's value (or range) in readable units; why not, when it is missing."""
    if q.get("value") is None:
        return "cannot be computed" if q.get("missing") else "—"
    unit = q.get("unit", "")
    if unit == "fraction of bf16 peak":
        text = f"{q['value']:.3f}"
        return text + (f" ({q['low']:.3f}–{q['high']:.3f})" if q["low"] != q["high"] else "")
    if q["low"] is not None and q["high"] is not None and q["low"] != q["high"]:
        return units.amount(q["low"], q["high"], unit)
    return units.amount(q["value"], unit=unit)


def _table_note(q: dict) -> str:
    t = q.get("table")
    if not t:
        return ""
    shown = units.amount(t["value"], unit=q["unit"])
    if "formula_value_on_table_hardware" in t:
        formula = units.amount(t["formula_value_on_table_hardware"], unit=q["unit"])
        return f"   (reference table: {shown} on {t['hardware']}; this formula on {t['hardware']}: {formula})"
    return f"   (reference table: {shown})"


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("*", "\\*")
