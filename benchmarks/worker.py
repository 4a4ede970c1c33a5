"""One measurement in a fresh process (run by benchmarks.run; prints one JSON line).

    python -m benchmarks.worker TASK '{"extension": "...", "query": "...", ...}'

Tasks:

- ``prepare``: build (or check) the native snapshot and the N-Triples export the SPARQL
  engines read, so that no later measurement pays for them;
- ``native``: KB load from the warm snapshot, then the warm query (text in, answer out);
- ``web``: ``recipekg serve`` in a subprocess per server named, loaded by client threads
  (:mod:`benchmarks.web`);
- ``oxigraph`` / ``rdflib``: KB load of the Turtle files into the engine, then the warm
  query through the exported SPARQL (recipekg.sparql.generate / recipekg.sparql.backend), the query text
  turned into SPARQL and the SPARQL parsed by the engine on every call.

Every task reports its timings (lists of seconds) and the process's peak resident memory.
"""

from __future__ import annotations

import gc
import json
import resource
import signal
import sys
import time


class Timeout(BaseException):  # not an Exception: engines catch those
    pass


def _alarm(signum, frame):
    raise Timeout()


def _repeat(fn, repeat: int, budget: float, first=None) -> list[float]:
    """Up to ``repeat`` timings of ``fn``, fewer when they take longer than ``budget`` seconds
    in all (at least one); ``first`` is a timing already taken."""
    times = [first] if first is not None else []
    spent = sum(times)
    while len(times) < repeat and (not times or spent + times[-1] <= budget):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
        spent += times[-1]
    return times


def _files(extension: str | None):
    from recipekg.knowledge.resources import bundled_files
    from pathlib import Path

    return bundled_files() + ([Path(extension)] if extension else [])


def _kb(args: dict):
    import recipekg

    ext = [args["extension"]] if args.get("extension") else []
    return recipekg.load(ext, shacl=args.get("shacl", True))


def prepare(args: dict) -> dict:
    from recipekg.sparql import stores

    t = time.perf_counter()
    kb = _kb(args)
    built = time.perf_counter() - t
    t = time.perf_counter()
    stores.export_ntriples(kb.files)
    exported = time.perf_counter() - t
    return {"triples": kb.snap["triples"], "rules": len(kb.snap["rules"]),
            "first_load": built, "export": exported, "shacl": kb.snap.get("shacl", True)}


def native(args: dict) -> dict:
    from recipekg.api import KnowledgeBase

    load = _repeat(lambda: _kb(args), args["repeat"], args["budget"])
    kb = _kb(args)
    text = args["query"]
    answer = kb.query(text)
    for _ in range(20):  # warm
        kb.query(text)
    query = _repeat(lambda: kb.query(text), args["query_repeat"], args["budget"])
    assert isinstance(kb, KnowledgeBase)
    out = {"load": load, "query": query, "answer": answer, "candidates": _candidates(kb, text)}
    if args.get("pair_bundled"):  # this KB and the bundled one, interleaved: a ratio noise spares
        import recipekg

        bundled = recipekg.load()
        for _ in range(20):
            bundled.query(text)
        pair: dict[str, list[float]] = {"bundled": [], "this": []}
        for _ in range(args["query_repeat"]):
            for name, k in (("bundled", bundled), ("this", kb)):
                t = time.perf_counter()
                k.query(text)
                pair[name].append(time.perf_counter() - t)
        out["pair"] = pair
    if args.get("topic_query"):  # a query the synthetic rules answer (native only)
        topic = args["topic_query"]
        for _ in range(20):
            kb.query(topic)
        out["topic"] = {"query": _repeat(lambda: kb.query(topic), args["query_repeat"], args["budget"]),
                        "candidates": _candidates(kb, topic),
                        "results": len(kb.query(topic)[0]["results"])}
    return out


def _candidates(kb, text: str) -> dict:
    """How many rules the native query evaluated, of how many of that kind."""
    from recipekg.query.ast import Recommend
    from recipekg.query.parser import parse
    from recipekg.reason.backend import candidates
    from recipekg.reason.resolve import facts_of, resolve_kind

    (stmt,) = parse(text)
    if not isinstance(stmt, Recommend):
        return {}
    kind = resolve_kind(stmt.kind, kb.snap)
    facts = facts_of(stmt.constraints, kb.snap)
    return {"evaluated": len(candidates(kind, facts, kb.snap)),
            "of_kind": len(kb.snap["rule_index"]["kinds"].get(kind, {}).get("rules", ())),
            "rules": len(kb.snap["rules"])}


def _turtle_oxigraph(files):
    import pyoxigraph as ox

    store = ox.Store()
    for f in files:
        store.bulk_load(path=str(f), format=ox.RdfFormat.TURTLE, base_iri=f.resolve().as_uri())
    return store


def _turtle_rdflib(files):
    from rdflib import Graph

    g = Graph()
    for f in files:
        g.parse(f, format="turtle")
    return g


def engine(args: dict, name: str) -> dict:
    from recipekg.sparql import engines
    from recipekg.sparql.backend import SparqlBackend

    files = _files(args.get("extension"))
    parse = _turtle_oxigraph if name == "oxigraph" else _turtle_rdflib
    load = _repeat(lambda: parse(files), args["repeat"], args["budget"])
    gc.collect()
    kb = _kb(args)
    eng = engines.OxigraphEngine(kb.files) if name == "oxigraph" else engines.RdflibEngine(kb.files)
    text = args["query"]
    signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, args["timeout"])
    t = time.perf_counter()
    try:
        answer = kb.query(text, backend=SparqlBackend(eng, kb.snap))
    except Timeout:
        return {"load": load, "query": [], "timeout": args["timeout"], "answer": None}
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    first = time.perf_counter() - t
    # a fresh backend per query: a backend keeps the rows of the queries it has run
    query = _repeat(lambda: kb.query(text, backend=SparqlBackend(eng, kb.snap)), args["query_repeat"],
                    args["budget"], first)
    return {"load": load, "query": query, "answer": answer}


def main() -> None:
    task, args = sys.argv[1], json.loads(sys.argv[2])
    if task == "prepare":
        out = prepare(args)
    elif task == "native":
        out = native(args)
    elif task == "web":
        import os

        from benchmarks.web import measure

        out = {"web": [measure(server, args["clients"], args["mix_requests"], args["new_requests"], dict(os.environ))
                       for server in args["servers"]]}
    else:
        out = engine(args, task)
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


if __name__ == "__main__":
    main()
