"""``recipekg cite``, ``papers``, ``paper`` and ``serve``: the citations, both ways, and the web page.

    $ recipekg cite --query "recommend architecture where data = tabular and rows = 30k" --format bibtex
    $ recipekg cite --choice lightgbm --format csl-json -o lightgbm.json
    $ recipekg papers
    $ recipekg paper grinsztajn2022
    $ recipekg serve                       # http://127.0.0.1:8000/
"""

from __future__ import annotations

import json
from pathlib import Path

import click

from .cite import FORMATS as CITE_FORMATS
from .cli import _load, format_option, kb_option, main, user_errors
from .errors import RecipeKGError


@main.command()
@click.option("-q", "--query", "statement", metavar="STATEMENT", help="The papers behind this query's answer.")
@click.option("--choice", metavar="ID", help="The papers a choice rests on (e.g. lightgbm, \"8-bit Adam\").")
@click.option("--rule", metavar="ID", help="The papers behind one rule.")
@click.option("--paper", metavar="ID", help="One paper of the bibliography.")
@click.option("--top", type=click.IntRange(min=1), help="With --query: only the first N results of each answer.")
@click.option("--format", "fmt", type=click.Choice(CITE_FORMATS), default="text", show_default=True,
              help="Citation format.")
@click.option("-o", "--output", type=click.Path(dir_okay=False), help="Write to FILE (atomically).")
@kb_option
@user_errors
def cite(statement, choice, rule, paper, top, fmt, output, extensions):
    """The papers behind a query's answer, a choice, a rule or a paper, each paper once."""
    from . import cite as c

    given = [name for name, v in (("--query", statement), ("--choice", choice), ("--rule", rule),
                                  ("--paper", paper)) if v is not None]
    if len(given) != 1:
        raise RecipeKGError("give exactly one of --query, --choice, --rule, --paper"
                            + (f" (got {', '.join(given)})" if given else ""), kind="usage")
    if top is not None and statement is None:
        raise RecipeKGError("--top goes with --query", kind="usage")
    kb = _load(extensions)
    if statement is not None:
        bundle = c.for_query(kb, statement, top)
    elif choice is not None:
        bundle = c.for_choice(kb.snap, choice)
    elif rule is not None:
        bundle = c.for_rule(kb.snap, rule)
    else:
        bundle = c.for_paper(kb.snap, paper)
    text = c.render(bundle, fmt)
    if output:
        from .export import write_atomic

        write_atomic(Path(output), text.encode("utf-8"))
    else:
        click.echo(text.rstrip("\n"))


@main.command()
@kb_option
@format_option
@user_errors
def papers(extensions, fmt):
    """Every paper with the number of claims (rules, formulas, constants, facts) citing it."""
    from .citegraph import CiteGraph

    snap = _load(extensions).snap
    graph = CiteGraph(snap)
    rows = [{"id": pid, "claims": claims, "entities": entities, "year": snap["papers"][pid]["year"],
             "title": snap["papers"][pid]["title"], "url": snap["papers"][pid]["url"]}
            for pid, claims, entities in graph.ranked_papers()]
    if fmt == "json":
        click.echo(json.dumps(rows, indent=2, ensure_ascii=False))
        return
    if fmt == "markdown":
        out = [f"# {len(rows)} papers", "", "| paper | claims | entities | year | title |", "|---|---|---|---|---|"]
        out += [f"| `{r['id']}` | {r['claims']} | {r['entities']} | {r['year'] or ''} | {_md(r['title'])} |" for r in rows]
        click.echo("\n".join(out))
        return
    width = max(len(r["id"]) for r in rows)
    out = [f"{len(rows)} papers; claims = rules, formulas, constants and facts citing each; "
           f"entities = entities introduced in it or described from it", "",
           f"{'paper'.ljust(width)}  claims  entities  year  title"]
    out += [f"{r['id'].ljust(width)}  {r['claims']:>6}  {r['entities']:>8}  {r['year'] or '':>4}  {r['title']}" for r in rows]
    click.echo("\n".join(out))


@main.command()
@click.argument("paper_id", metavar="ID")
@kb_option
@format_option
@user_errors
def paper(paper_id, extensions, fmt):
    """Every rule, formula, constant and fact citing paper ID, and the choices they lead to."""
    from .cite import reference
    from .citegraph import CiteGraph

    snap = _load(extensions).snap
    graph = CiteGraph(snap)
    back = graph.backlinks(paper_id)
    p = back["paper"]
    if fmt == "json":
        click.echo(json.dumps(back, indent=2, ensure_ascii=False))
        return
    md = fmt == "markdown"
    n = len(back["claims"])
    out = [f"# {p['id']}: {p['title']}" if md else f"{p['id']} — {p['title']}", reference(p), "",
           f"{'## ' if md else ''}cited by {n} claim{'s' * (n != 1)}"]
    for cl in back["claims"]:
        head = f"{cl['kind']} {cl['id']}"
        out.append(f"- **{head}** ({_md(cl['section'] or '')}): {_md(cl['text'] or cl['label'])}" if md
                   else f"  {head}  [{cl['section']}]")
        if not md:
            out.append(f"      {cl['text'] or cl['label']}")
        for rel, names in _by_rel(cl["choices"]).items():
            out.append(f"{'  - ' if md else '      → '}{rel}: {', '.join(names)}")
    if back["entities"]:
        out += ["", f"{'## ' if md else ''}entities"]
        for e in back["entities"]:
            out.append(f"{'- ' if md else '  '}{e['label']} ({e['id']}): {', '.join(e['rels'])}")
    click.echo("\n".join(out))


def _by_rel(choices: list[dict]) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for ch in choices:
        for rel in ch["rels"]:
            out.setdefault(rel, []).append(f"{ch['label']} ({ch['id']})")
    return out


def _md(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


@main.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (local only by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free port).")
@kb_option
@user_errors
def serve(host, port, extensions):
    """A local, read-only web page: query box, reasons, papers and backlinks, BibTeX to copy."""
    import socket

    from werkzeug.serving import get_sockaddr, make_server, select_address_family

    from .web import LOOPBACK_HOSTS, create_app

    app = create_app(_load(extensions), trusted_hosts=LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None)
    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:  # bind here, so that a busy port is our error (exit 2), not werkzeug's exit 1
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(128)
        server = make_server(host, port, app, threaded=True, fd=sock.fileno())
    except OSError as exc:
        raise RecipeKGError(f"cannot listen on {host}:{port}: {exc.strerror or exc}", kind="usage") from None
    finally:
        sock.close()  # the server holds its own duplicate of the socket
    shown = f"[{host}]" if ":" in host else host
    click.echo(f"recipekg: serving on http://{shown}:{server.port}/ (Ctrl-C to stop)", err=True)
    if host not in LOOPBACK_HOSTS:
        click.echo(f"recipekg: warning: listening on {host}, reachable from other machines", err=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
