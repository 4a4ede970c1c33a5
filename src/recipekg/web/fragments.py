"""The pieces every answer page repeats, built in Python: a rule's reason block, a paper's
reference line, a source's role, links to a choice or a claim, the copy box, the flow picture.

They were Jinja macros; a macro call costs Jinja's argument handling and a dictionary look-up
through exceptions per attribute, dozens of times on a page (a recommend page has 20 to 50
reasons, each with its papers). Here each is a function returning :class:`markupsafe.Markup`
and escaping every KB or user text with :func:`markupsafe.escape` exactly as the templates'
autoescaping did, byte for byte; a paper's reference line, the same on every page but for
the script root, is built once per root. :func:`register` puts them in an app's template
globals under the macros' old names.

    >>> from recipekg.web.app import create_app
    >>> app = create_app(kb)
    >>> with app.test_request_context("/"):
    ...     print(app.jinja_env.globals["claim_link"]("rule", "a<b", "x -> y"))
    ...     print(app.jinja_env.globals["source_role"]({"role": "states", "where": "Table 3"}))
    <a class="claim rule" href="/rule/a%3Cb">x → y</a>
    <span class="role role-states">states: Table 3</span>
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache

from markupsafe import Markup, escape

from recipekg.render.numbers import value as number_text
from recipekg.render.situation import taken_text
from recipekg.render.sources import role_text
from recipekg.web.flow import human

#: How many reference lines :class:`Fragments` keeps (one per paper and script root).
REFS_KEPT = 8192
#: How many source lines (a paper, its role and locator, under a script root) it keeps.
SOURCES_KEPT = 16384


def _text(item: dict, key: str):
    """``item.key`` as the templates printed it: missing is empty, anything else its text."""
    return escape(item.get(key, ""))


class Fragments:
    """The fragments of one app: its papers, its choices, its links."""

    def __init__(self, papers, choice_ids, url_for) -> None:
        from flask import request

        self.papers, self.choice_ids, self.url_for, self._request = papers, choice_ids, url_for, request
        self._ref = lru_cache(maxsize=REFS_KEPT)(self._build_ref)
        self._sources: dict[tuple, str] = {}

    def paper_of(self, pid):
        """The paper ``pid`` of the KB (None when it has none)."""
        return self.papers.get(pid)

    def paper_ref(self, p) -> Markup:
        """``<a class="paper" ...>id</a> — title (year)`` of paper ``p`` (empty for none)."""
        if not p:
            return Markup("")
        pid = p.get("id")
        if isinstance(pid, str) and self.papers.get(pid) is p:  # the KB's paper: built once per root
            return self._ref(self._request.script_root, pid)
        return self._build_ref(self._request.script_root, p)

    def _build_ref(self, root, p) -> Markup:
        if isinstance(p, str):
            p = self.papers[p]
        year = p.get("year")
        return Markup(f'<a class="paper" href="{escape(self.url_for("paper", pid=p.get("id", "")))}">'
                      f'{_text(p, "id")}</a> — {_text(p, "title")}' + (f" ({escape(year)})" if year else ""))

    def source_ref(self, s) -> Markup:
        """:meth:`paper_ref` of the paper a source object names."""
        return self.paper_ref(self.papers.get(s.get("id")) if isinstance(s, dict) else None)

    @staticmethod
    def source_role(s) -> Markup:
        """A source's role as a tag (empty when it has none)."""
        if not isinstance(s, Mapping) or not s.get("role"):
            return Markup("")
        return Markup(f'<span class="role role-{escape(s["role"])}">{escape(role_text(s))}</span>')

    @staticmethod
    def origin(item) -> Markup:
        """Where an extension's claim comes from (empty for the reference's own)."""
        if not isinstance(item, Mapping) or not item.get("origin"):
            return Markup("")
        o = item["origin"]
        if item.get("ranked_for_extension"):  # (a bundled exclusion of a choice only its rules ranked)
            return Markup(f'<span class="origin">ranked here for the rules of the extension {_text(o, "file")}, '
                          f'line {_text(o, "line")}</span>')
        return Markup(f'<span class="origin">from the extension {_text(o, "file")}, line {_text(o, "line")}'
                      " — not the reference</span>")

    @staticmethod
    def caveat(text) -> Markup:
        """A claim's caveat as a paragraph (empty for none)."""
        return Markup(f'<p class="caveat"><strong>Caveat:</strong> {escape(text)}</p>') if text else Markup("")

    def choice_link(self, cid, label) -> Markup:
        """``label`` linked to the entity page of choice ``cid`` (plain when no such page)."""
        if cid in self.choice_ids:
            return Markup(f'<a class="choice" href="{escape(self.url_for("entity", name=cid))}">{escape(label)}</a>')
        return escape(label)

    def claim_link(self, kind, cid, label=None) -> Markup:
        """A link to the page of claim ``cid`` of ``kind``, reading ``label`` (default: the id)."""
        return Markup(f'<a class="claim {escape(kind)}" href="{escape(self.url_for("claim", kind=kind, cid=cid))}">'
                      f"{escape(human(label or cid))}</a>")

    @staticmethod
    def copy_box(box_id, text, label="Copy BibTeX") -> Markup:
        """A read-only text box with a copy button (the page's one script makes it copy)."""
        rows = min(text.count("\n") + 1, 14)
        i = escape(box_id)
        return Markup(f'<div class="copybox">\n  <button type="button" class="copy" data-copy="{i}">{escape(label)}</button>\n'
                      f'  <span class="copy-status" id="{i}-status" aria-live="polite"></span>\n'
                      f'  <textarea id="{i}" class="bibtex" readonly rows="{rows}" spellcheck="false">{escape(text)}'
                      "</textarea>\n</div>")

    def reason(self, x: dict, side: str) -> Markup:
        """A rule's reason, folded: its strength and match, then its text, section, the values
        that missed narrowly, its conditions, papers, caveat and disputes."""
        head = (f'<details class="reason {escape(side)}" data-rule="{_text(x, "id")}">\n'
                f'  <summary><span class="sign">{"+" if side == "because" else "−"}</span>\n'
                f'    <span class="strength">{_text(x, "strength")}</span>, <span class="match">{_text(x, "match")}</span>:\n'
                f'    {self._about(x)}{escape(human(x.get("label") or x.get("text")))}</summary>\n'
                f'  <div class="reason-body">\n    <p class="rule-text">{_text(x, "text")}</p>\n')
        parts = [head, f'    <p class="section">{self.origin(x)}</p>\n    \n' if x.get("origin") else
                 f'    <p class="section">Reference section: <em>{_text(x, "section")}</em></p>\n', "    "]
        near = x.get("near")
        if near:
            unit = near.get("unit")
            given = f'{_text(near, "dimension")} {escape(number_text(near.get("value"), unit))}'
            parts.append(f'<p class="near">Missed narrowly: {given} is the threshold, which the rule leaves out.</p>'
                         if near.get("value") == near.get("threshold") else
                         f'<p class="near">Missed narrowly: {given}'
                         f' against the threshold {escape(number_text(near.get("threshold"), unit))}.</p>')
        if x.get("taken"):
            parts.append(f'<p class="taken">{escape(taken_text(x["taken"]).strip(" ()").capitalize())}.</p>')
        parts.append("\n    ")
        if x.get("conditions"):
            items = "".join(f'<li class="status-{escape(str(c.get("status", "")).replace(" ", "-"))}">'
                            f'{_text(c, "status")}: {_text(c, "condition")}</li>' for c in x["conditions"])
            parts.append(f'\n    <ul class="conditions">\n      {items}\n    </ul>\n    ')
        papers = "".join(self._memo("reason", s, self._reason_source) for s in x.get("sources") or ())
        parts.append(f'\n    <p class="papers-head">Papers:</p>\n    <ul class="papers">\n      {papers}\n    </ul>\n'
                     f'    {self.caveat(x.get("caveat"))}\n    ')
        parts.extend(self._dispute(d) for d in x.get("disputed_by") or ())
        parts.append(f"\n    <p>{self.claim_link('rule', x.get('id'), 'The rule’s page')}</p>\n  </div>\n</details>")
        return Markup("".join(parts))

    def _reason_source(self, s) -> str:
        return f"<li>{self.source_ref(s)} {self.source_role(s)} {self.origin(s)}</li>"

    def _memo(self, kind: str, s, build) -> str:
        """``build(s)`` for a source ``s`` (an id, or an object with ``id``, ``role``, ``where``),
        kept per script root: a source line is the same on every page but for the root. Sources
        of an extension (with an ``origin``) or of other shapes are built each time."""
        if isinstance(s, str):
            key = (self._request.script_root, kind, s, None, None)
        elif (isinstance(s, Mapping) and not s.get("origin") and isinstance(s.get("id"), str)
              and isinstance(s.get("role"), (str, type(None))) and isinstance(s.get("where"), (str, type(None)))):
            key = (self._request.script_root, kind, s["id"], s.get("role"), s.get("where"))
        else:
            return build(s)
        text = self._sources.get(key)
        if text is None:
            text = build(s)
            if len(self._sources) < SOURCES_KEPT:
                self._sources[key] = text
        return text

    @staticmethod
    def _about(x: dict) -> str:
        via = x.get("via")
        return f"<em>(about {_text(via, 'label')})</em> " if via else ""

    def _dispute(self, d: dict) -> str:
        see = self.claim_link("rule", d.get("id"), "see rule")
        if d.get("origin"):
            o = d["origin"]
            return (f'\n    <p class="disputed">The extension {_text(o, "file")}, line {_text(o, "line")} disagrees: '
                    f'{_text(d, "text")} — {see}</p>\n    \n    ')
        who = "The reference disagrees" if d.get("of_reference", True) else "A source beyond the reference disagrees"
        return f'\n    <p class="disputed">{who} ({_text(d, "section")}): {_text(d, "text")} — {see}</p>\n    '

    def flow_svg(self, f: dict, title: str) -> Markup:
        """The flow picture (:func:`recipekg.web.flow.flow`) as SVG, its boxes linked to
        their pages."""
        t = escape(title)
        edges = "".join(f'<path class="edge {_text(e, "kind")}" d="{_text(e, "d")}"/>' for e in f["edges"])
        boxes = "".join(self._box(b) for b in f["boxes"])
        return Markup(f'<figure class="flow">\n<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_text(f, "width")} '
                      f'{_text(f, "height")}" role="img" aria-label="{t}">\n  <title>{t}</title>\n'
                      '  <text class="col-head" x="10" y="10">constraints</text>\n'
                      '  <text class="col-head" x="290" y="10">rules that fired</text>\n'
                      f'  <text class="col-head" x="700" y="10">choices</text>\n  {edges}\n  {boxes}\n</svg>\n'
                      '<figcaption>How the answer follows: <span class="key derived">derived</span> <span class="key held">'
                      'condition held</span> <span class="key partly">partly held</span> <span class="key because">rule for'
                      '</span> <span class="key against">rule against</span>. Boxes link to their pages.</figcaption>\n'
                      "</figure>")

    def _box(self, b: dict) -> str:
        kind, key = b["kind"], b["key"]
        linked = kind == "rule" or kind == "choice" and key in self.choice_ids
        link = "" if not linked else escape(self.url_for("claim", kind="rule", cid=key) if kind == "rule"
                                            else self.url_for("entity", name=key))
        x8 = escape(b["x"] + 8)
        lines = "".join(f'<tspan x="{x8}" y="{_text(line, "y")}">{_text(line, "text")}</tspan>' for line in b["lines"])
        return (f'\n  {f"<a href={chr(34)}{link}{chr(34)}>" if linked else ""}\n  <g class="box {escape(kind)}">\n'
                f'    <title>{_text(b, "title")}</title>\n'
                f'    <rect x="{_text(b, "x")}" y="{_text(b, "y")}" width="{_text(b, "w")}" height="{_text(b, "h")}" rx="6"/>\n'
                f'    <text x="{x8}" y="{_text(b, "y")}">{lines}</text>\n  </g>\n  {"</a>" if linked else ""}\n  ')

    def quantity_rows(self, quantities: list[dict]) -> Markup:
        """The rows of a plan's table of quantities (:func:`recipekg.web.present.quantity_view`):
        name, value, derivation with its formula and section, and the papers."""
        return Markup("".join(self._quantity(q) for q in quantities))

    def _quantity(self, q: dict) -> str:
        table, expression, section = q.get("table"), q.get("expression"), q.get("section")
        return (f'\n  <tr><td>{_text(q, "name")}</td>\n      <td>{_text(q, "value")}'
                + (f"<br><small>{escape(table)}</small>" if table else "") + "</td>\n      <td>"
                + (f'{escape(q["derivation"])}' if q.get("derivation") else "") + "\n          "
                + (f"<br><code>{escape(expression)}</code>" if expression else "") + "\n          "
                + (f"<br><small>{escape(section)}</small>" if section else "")
                + f'</td>\n      <td>{", ".join(self._memo("quantity", s, self._quantity_source) for s in q.get("sources") or ())}'
                + "</td></tr>\n  ")

    def _quantity_source(self, s) -> str:
        mapping = isinstance(s, Mapping)
        pid = s.get("id", "") if mapping else s
        out = f'<a href="{escape(self.url_for("paper", pid=pid))}">{escape(pid)}</a>'
        if mapping and s.get("role"):
            out += f' <span class="role role-{escape(s["role"])}">({escape(role_text(s))})</span>'
        if mapping and s.get("origin"):
            o = s["origin"]
            out += f' <span class="origin">from the extension {_text(o, "file")}, line {_text(o, "line")}</span>'
        return out

#: The template globals :func:`register` sets: the macros' old names.
NAMES = ("paper_ref", "source_role", "origin", "caveat", "choice_link", "claim_link", "copy_box", "reason", "flow_svg",
         "quantity_rows")


def register(app, papers, choice_ids) -> Fragments:
    """Make the fragments of ``app`` (its KB's ``papers`` and ``choice_ids``, its templates'
    ``url_for``) template globals."""
    fragments = Fragments(papers, choice_ids, app.jinja_env.globals["url_for"])
    app.jinja_env.globals.update({name: getattr(fragments, name) for name in NAMES})
    return fragments
