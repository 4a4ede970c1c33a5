"""Render a ``plan`` answer as text or Markdown: the quantities with readable units, each
with its formula and sources, then fit, what to do if it does not fit, feasibility, the
compute tier's advice, bandwidth, warnings and notes, and the papers cited. Without
``detail`` (the command line's default) it is the verdict, what to change, the constraints
and strategy, every quantity on one line, the warnings and the ids of the sources; the
derivations, formulas, breakdowns, the tier's advice, the notes and the papers' titles are
``detail``'s (``--detail``).

    >>> (answer,) = kb.query("plan where params = 7B and hardware = h100 and gpus = 8")
    >>> lines = render_plan(answer, md=False).splitlines()
    >>> print("\\n".join(lines[:1] + [x for x in lines if x.startswith("  tokens ")]))
    plan — params = 7B and hardware = h100 and gpus = 8
      tokens            140B tokens   (reference table: 140B tokens)
    >>> md = render_plan(answer, md=True).splitlines()
    >>> print("\\n".join(md[md.index("### Quantities") + 2:][:3]))
    | quantity | value | how | formula | sources |
    |---|---|---|---|---|
    | params | **7B parameters** | given in the query (params = 7B) |  |  |
"""

from __future__ import annotations

from recipekg.render import numbers as units
from recipekg.render.numbers import quantity_value
from recipekg.render.constraints import constraint_line, no_advice_lines
from recipekg.render.sources import sources_short


class _Page:
    """The lines written so far, as text or Markdown, and the papers they cite."""

    def __init__(self, md: bool):
        self.md = md
        self.lines: list[str] = []
        self.papers: dict[str, dict] = {}

    def cite(self, sources) -> str:
        """The sources with their roles (``kaplan2020 (states: Section 2.1)``), noted for the
        list of papers at the end."""
        for s in sources or []:
            self.papers.setdefault(s["id"], s)
        return sources_short(sources or [])

    def cited(self, sources) -> str:
        """`` [ids]`` when there are sources, else nothing."""
        return f" [{self.cite(sources)}]" if sources else ""

    def head(self, text: str) -> None:
        self.lines.extend(["", f"### {text}"] if self.md else ["", text, "-" * min(len(text), 80)])

    def item(self, text: str, indent: int = 1) -> None:
        self.lines.append(("  " * (indent - 1) + "- " + text) if self.md else ("  " * indent + text))


def render_plan(a: dict, md: bool, detail: bool = True) -> str:
    """A plan answer as text (``md=False``) or Markdown; text without ``detail`` is short."""
    page = _Page(md)
    if not (md or detail):
        return brief_plan(page, a)
    _opening(page, a)
    _recommendations(page, a.get("recommendations") or [])
    _fit(page, a.get("fit"))
    _feasibility(page, a)
    _context(page, a)
    (_quantities_md if md else _quantities_text)(page, a["quantities"])
    _tier(page, a.get("tier"))
    _bandwidth(page, a.get("bandwidth"))
    _remarks(page, a)
    _papers(page, a["quantities"])
    return "\n".join(page.lines)


def _opening(page: _Page, a: dict) -> None:
    """The query, then the summary: the verdict and what to change first."""
    page.lines.append(f"## plan — {_query(a)}" if page.md else f"plan — {_query(a)}")
    if a.get("summary"):
        page.lines.append("")
        page.lines.append("**In short**" if page.md else "in short:")
        for line in a["summary"]:
            page.item(line)


def given_model_sizing(method: str) -> str:
    """Why no scaling law sizes a run of ``method`` (fine-tuning or serving a given model).

    >>> given_model_sizing("qlora")
    'method = qlora trains or serves a given model; the scaling laws size a pretraining run, so none applies here'
    """
    return f"method = {method} trains or serves a given model; the scaling laws size a pretraining run, so none applies here"


def _context(page: _Page, a: dict) -> None:
    """What the plan read: its constraints, planning backwards, the strategy."""
    page.lines.append("")
    page.lines.append(f"constraints: {constraint_line(a['constraints'])}")
    page.lines.extend(no_advice_lines(a["constraints"]))
    if a.get("backwards"):
        page.lines.append(a["backwards"]["text"].replace("planned backwards", "planned backwards:", 1))
    s = a.get("strategy")
    if s and a.get("method") not in (None, "pretrain"):  # a given model: no tokens-per-parameter law sizes it
        page.lines.append(f"strategy: the model's own size — {given_model_sizing(a['method'])}")
    elif s:
        ratio = s["tokens_per_param"]
        shown = (units.amount(ratio["low"], ratio["high"], "tokens/param") if ratio["low"] is not None
                 else units.amount(ratio["value"], unit="tokens/param") if ratio["value"] is not None else None)
        page.lines.append(f"strategy: {s['label']}{f' ({shown})' if shown else ''} — {s['why']}"
                          + (f" [{page.cite([p for r in s['because'] for p in r['sources']])}]"
                             if s["because"] else ""))


def _quantities_md(page: _Page, quantities: list[dict]) -> None:
    """One table row per quantity, and one per part of its breakdown."""
    from recipekg.render.tables import md_code, table  # Markdown only: the text plan does without

    page.head("Quantities")
    rows = []
    for q in _own(page, quantities):
        formula = f"{md_code(q['formula']['expression'])} ({q['formula']['id']})" if q["formula"] else ""
        caveats = "".join(f"<br>*caveat ({c['of']})*: {c['text']}" for c in q.get("caveats", []))
        rows.append((q["name"], f"**{quantity_value(q)}**", q["derivation"] + table_note(q) + caveats, formula,
                     f"{page.cite(q['sources'])}{' — ' + q['section'] if q.get('section') else ''}"))
        for p in q.get("parts", []):
            symbols = ", ".join(md_code(c["symbol"] or c["id"]) for c in p["constants"])
            rows.append((f"↳ {p['label']}", quantity_value(p), p["derivation"], symbols,
                         page.cite(p["sources"])))
    page.lines += ["", *table(["quantity", "value", "how", "formula", "sources"], rows, md=True)]


def _own(page: _Page, quantities: list[dict]) -> list[dict]:
    """The quantities of the plan's method; those the contract fixes but the method has none of
    named in one line first, with why (each has its ``not_applicable``)."""
    other = [q for q in quantities if q.get("not_applicable")]
    if other:
        page.lines.append(f"  not figures of this plan: {', '.join(q['name'] for q in other)} — "
                          f"{other[0]['not_applicable']}")
    return [q for q in quantities if not q.get("not_applicable")]


def _quantities_text(page: _Page, quantities: list[dict]) -> None:
    """Each quantity with its derivation, formula and sources under it."""
    page.head("Quantities")
    width = max(len(q["name"]) for q in quantities) + 2
    for q in _own(page, quantities):
        pad = " " * (2 + width)
        page.lines.append(f"  {q['name']:<{width}}{quantity_value(q)}{table_note(q)}")
        if q["derivation"]:
            page.lines.append(pad + q["derivation"])
        if q["formula"] and q["value"] is not None:
            page.lines.append(pad + f"formula {q['formula']['id']}: {q['formula']['expression']}")
        if q["sources"] or q.get("section"):
            page.lines.append(pad + "sources: " + (page.cite(q["sources"]) or "—")
                              + (f" · {q['section']}" if q.get("section") else ""))
        for c in q.get("caveats", []):
            page.lines.append(pad + f"caveat ({c['of']}): {c['text']}")
        if q.get("parts"):
            _breakdown_text(page, q, pad)


def _breakdown_text(page: _Page, q: dict, pad: str) -> None:
    parts = q["parts"]
    pw = max(len(p["label"]) for p in parts) + 2
    page.lines.append(pad + "breakdown (" + parts[0]["formula"]["id"] + "):")
    for p in parts:
        bpp = p["bytes_per_param"]
        page.lines.append(pad + f"  {p['label']:<{pw}}{quantity_value(p):<14}"
                                f"{units.amount(bpp['low'], bpp['high'], 'bytes/param')}"
                                f"  [{page.cite(p['sources'])}]")
    total = q.get("parts_sum")
    if total:
        per = total["bytes_per_param"]
        page.lines.append(pad + f"  {'sum':<{pw}}{units.amount(total['low'], total['high'], 'bytes'):<14}"
                                f"{units.amount(per['low'], per['high'], 'bytes/param')}")


def gpu_label(hardware: dict | None) -> str:
    """What one of the plan's GPUs is: the hardware's label, a die of it where software sees
    its package as several GPUs (an MI250X's two).

    >>> gpu_label({"label": "AMD Instinct MI250X", "devices_per_package": 2}), gpu_label(None)
    ('AMD Instinct MI250X die', 'GPU')
    """
    if not hardware:
        return "GPU"
    return hardware["label"] + (" die" if hardware.get("devices_per_package", 1) > 1 else "")


def _fit(page: _Page, fit: dict | None) -> None:
    if not fit:
        return
    hw = gpu_label(fit.get("hardware"))
    gpus = fit["gpus"]
    page.head(f"Fit on {units.grouped(gpus, exact=True)} × {hw} ({_bytes(fit['memory_per_gpu'])} each"
              + (f", {_bytes(fit['memory_total'])} in all" if gpus and gpus > 1 else "") + ")")
    page.item(f"verdict: {fit['text']}")
    if fit.get("method") not in (None, "pretrain", "full-fine-tune"):
        return  # the reference's rule of thumb counts training every weight: no figure of this method (JSON keeps it)
    page.item(fit["replicated"]["text"])
    if fit.get("sharded"):
        page.item(fit["sharded"]["text"])


def _recommendations(page: _Page, recs: list[dict]) -> None:
    if not recs:
        return
    detailed = all(r.get("detailed") for r in recs)
    page.head("What would make it fit (cheapest change first)" if detailed else
              "If it does not fit: what each memory saving brings")
    for r in recs:
        enough = ("" if r["enough"] is None or r["id"] in ("combined", "together") else
                  " — enough on its own" if r["enough"] else " — not enough on its own")
        page.item(f"{r['label']}: {r['text']}{enough}" + page.cited(r["sources"]))
        for x in r["rules"][:1]:
            page.item(f"rule ({x['strength']}): {x['text']} ({x['section']})", 3)


def _feasibility(page: _Page, a: dict) -> None:
    feas = a.get("feasibility") or {}
    rules = feas.get("rules") if isinstance(feas, dict) else feas
    if feas.get("text") if isinstance(feas, dict) else False:
        page.head("Time budget")
        page.item(feas["text"] + (f" (feasibility.gpus_for_time = {feas['gpus_for_time']:,})"
                                  if feas.get("gpus_for_time") and not feas.get("meets_time_budget") else ""))
    if not rules:
        return
    page.head(f"Feasibility on {a['hardware']['label']}")
    for r in rules:
        side = "against: " if r["advises_against"] and not r["recommends"] else ""
        page.item(f"{side}[{r['strength']}] {r['text']} ({r['section']}; {page.cite(r['sources'])})")
        if r.get("caveat"):
            page.item(f"caveat: {r['caveat']}", 2)


def _tier(page: _Page, tier: dict | None) -> None:
    if not tier:
        return
    page.head("Compute tier")
    page.item(tier["text"])
    for r in tier["advice"]:
        sign = "−" if r["advises_against"] and not r["recommends"] else "+"
        page.item(f"{sign} [{r['strength']}] {r['text']} [{page.cite(r['sources'])}]", 2)
        if r.get("caveat"):
            page.item(f"caveat: {r['caveat']}", 3)


def _bandwidth(page: _Page, bw: dict | None) -> None:
    if not bw:
        return
    page.head("Bandwidth")
    page.item(bw["text"] + page.cited(bw.get("sources")))


def _remarks(page: _Page, a: dict) -> None:
    """The warnings, then the notes."""
    if a.get("warnings"):
        page.head("Warnings")
        for w in a["warnings"]:
            page.item(f"! {w['text']}" + page.cited(w.get("sources")))
    if a.get("notes"):
        page.head("Notes")
        for n in a["notes"]:
            page.item(n["text"] + page.cited(n.get("sources")))


def _papers(page: _Page, quantities: list[dict]) -> None:
    """Every paper cited above (and behind the reference table's figures), by id."""
    for q in quantities:
        page.cite((q.get("table") or {}).get("sources"))
    if not page.papers:
        return
    page.head("Papers")
    for pid, p in sorted(page.papers.items()):
        where = f"arXiv:{p['arxiv']}" if p.get("arxiv") else p.get("url") or ""
        year = f" ({p['year']})" if p.get("year") else ""
        page.item(f"{pid}: {p['title']}{year} {where}".rstrip())


def _query(a: dict) -> str:
    q = a.get("query", "plan")
    return q[5:].removeprefix("where ").strip() if q.lower().startswith("plan ") else "(no constraints)"


def _bytes(q: dict) -> str:
    if q["low"] != q["high"]:
        return units.amount(q["low"], q["high"], "bytes")
    return units.amount(q["value"], unit="bytes")


def table_note(q: dict) -> str:
    """What the reference's table says beside a computed quantity (empty when it says nothing)."""
    t = q.get("table")
    if not t:
        return ""
    shown = units.amount(t["value"], unit=q["unit"])
    if "formula_value_on_table_hardware" in t:
        formula = units.amount(t["formula_value_on_table_hardware"], unit=q["unit"])
        return f"   (reference table: {shown} on {t['hardware']}; this formula on {t['hardware']}: {formula})"
    return f"   (reference table: {shown})"


def _stars(text: str) -> str:
    """``*`` escaped for Markdown (the table escapes ``|``)."""
    return text.replace("*", "\\*")


#: The line that says where the rest of a short plan is.
MORE = ("more: --detail (each quantity's derivation, formula and sources, the memory breakdown, the compute "
        "tier's advice, the notes, the papers), --format json (every field)")


def brief_plan(page: _Page, a: dict) -> str:
    """The short plan: verdict and changes first, then one line per quantity and the sources' ids."""
    _opening(page, a)
    _recommendations(page, a.get("recommendations") or [])
    feas = a.get("feasibility")
    if isinstance(feas, dict) and feas.get("text") and not feas.get("meets_time_budget"):
        _feasibility(page, {"feasibility": {k: v for k, v in feas.items() if k != "rules"}})
    _context(page, a)
    quantities = [q for q in a["quantities"] if q["value"] is not None]
    page.head("Quantities")
    width = max((len(q["name"]) for q in quantities), default=0) + 2
    for q in quantities:
        page.cite(q["sources"])
        page.lines.append(f"  {q['name']:<{width}}{quantity_value(q)}{table_note(q)}")
    missing = [q["name"] for q in a["quantities"] if q["value"] is None and not q.get("not_applicable")]
    if missing:
        page.lines.append(f"  not computed: {', '.join(missing)} (--detail says what each needs)")
    other = [q["name"] for q in a["quantities"] if q.get("not_applicable")]
    if other:
        page.lines.append(f"  not figures of method = {a.get('method')}: {', '.join(other)} (--detail says why)")
    for w in a.get("warnings") or ():
        page.lines.append(f"! {w['text']}")
    for key in ("fit", "tier", "bandwidth"):
        page.cite((a.get(key) or {}).get("sources"))
    for r in a.get("recommendations") or ():
        page.cite(r.get("sources"))
    page.lines.append("")
    notes = len(a.get("notes") or ())
    if notes:
        page.lines.append(f"notes: {notes} (--detail)")
    if page.papers:
        page.lines.append("sources: " + ", ".join(sorted(page.papers)))
    page.lines.append(MORE)
    return "\n".join(page.lines)
