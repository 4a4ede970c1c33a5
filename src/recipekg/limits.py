"""The caps that keep every request bounded, in one place (docs/security.md lists them).

They are not claims about training runs, so they live here rather than in the KB:

    >>> MAX_QUERY_CHARS, MAX_STATEMENTS, SPARQL_MAX_RESULTS, MAGNITUDES
    (100000, 200, 10000, (1e-30, 1e+40))
    >>> extension_bytes_cap({"RECIPEKG_MAX_EXTENSION_MB": "64"}) == 64 << 20
    True
"""

from __future__ import annotations

#: A query text (CLI, file, stdin, Python API) holds at most this many characters...
MAX_QUERY_CHARS = 100_000
#: ...and at most this many statements.
MAX_STATEMENTS = 200
#: An answer re-ranks at most this many thresholds near each number the query gives, the nearest
#: first, to say what the other side would pick (recipekg/reason/boundaries.py): the bundled KB
#: has at most a few per number; an extension with thousands of them no longer makes an answer's
#: work grow with their square (hostile extensions, round 6: 20,000 thresholds, no answer in 30 min).
MAX_BOUNDARY_TRIALS = 4
#: The web page's query box and /?q= take less: a URL is not a file.
MAX_WEB_QUERY_CHARS = 10_000
#: The /sparql endpoint (``recipekg serve``): a query runs at most this many seconds (then its
#: worker process is stopped and the response, 503, says so; ``serve --sparql-timeout``)...
SPARQL_TIMEOUT_SECONDS = 10.0
#: ...returns at most this many solutions or triples (the response says when it cut more)...
SPARQL_MAX_RESULTS = 10_000
#: ...and at most this many queries run at once, each in its own worker process (60-80 MB
#: resident for the bundled KB); further queries wait for one, up to the timeout.
SPARQL_WORKERS = 2
#: ``recipekg serve``'s /api/query and pages: a query (all its statements) runs at most this
#: many seconds, in one of this many worker processes, like /sparql's (recipekg/web/answering.py;
#: ``serve --query-timeout``): then the worker is stopped and the answer is 503.
ANSWER_TIMEOUT_SECONDS = 10.0
ANSWER_WORKERS = 2
#: An extension file is at most this many MiB (about 1.6M triples written like the bundled
#: KB; validating costs about 40 bytes of memory per byte of Turtle, so 2.5 GB at the cap).
#: RECIPEKG_MAX_EXTENSION_MB raises it for a machine with the memory to spare.
MAX_EXTENSION_MB = 64
#: The magnitudes plan computes with, in base units (bytes, FLOP/s, parameters...), whether a
#: query gives them (``gpu-memory = 1e308`` is refused at the query) or the KB does (a
#: hardware or model figure outside them is refused at its file:line by ``recipekg validate``,
#: for every property the ontology bounds below at 0 or more). A product-safety limit, not a
#: claim about hardware or training runs: a few products of numbers in this span stay far
#: inside floating point's range, so no quantity underflows to 0 or overflows to infinity.
MAGNITUDES = (1e-30, 1e40)
#: The whole numbers plan reads (counts of physical things and layout degrees): the range each
#: must lie in, for a query's value (``layers = 32``) and for the KB's model figure that stands
#: for it (``rkg:layers``, recipekg.knowledge.bounds). A product-safety limit too: wide
#: enough for any run (the largest published clusters have about 10^5 GPUs), and it keeps
#: every search bounded.
WHOLE_NUMBERS = {"gpus": (1, 1e8), "zero": (0, 3), "tensor-parallel": (1, 1e6), "pipeline-parallel": (1, 1e6),
                 "layers": (1, 1e6), "heads": (1, 1e6), "kv-heads": (1, 1e6), "hidden": (1, 1e9),
                 "vocab": (1, 1e9), "seq-length": (1, 1e9), "micro-batch": (1, 1e9), "batch-size": (1, 1e9),
                 "lora-rank": (1, 1e6), "ffn-hidden": (1, 1e9), "ffn-matrices": (1, 1e9), "attention-window": (1, 1e9)}


def whole_number_problem(name: str, value: float, text: str) -> str | None:
    """What is wrong with ``value`` (typed as ``text``) as the count :data:`WHOLE_NUMBERS` names
    ``name``, or None: a fraction, or a number outside the count's range. The one check of a
    query's counts, in every statement (recipekg.reason.resolve) and in plan (recipekg.plan.inputs).

    >>> whole_number_problem("gpus", 2.5, "2.5"), whole_number_problem("gpus", 0.0, "0")
    ("'gpus' counts whole things: a whole number, not 2.5", "'gpus' must be between 1 and 100M, not 0")
    >>> whole_number_problem("zero", 3.0, "3") is None
    True
    """
    least, most = WHOLE_NUMBERS[name]
    if value != int(value):
        return f"'{name}' counts whole things: a whole number, not {text}"
    if not least <= value <= most:
        return f"'{name}' must be between {_count(least)} and {_count(most)}, not {text}"
    return None


def _count(x: float) -> str:
    """A bound of a count as the errors write it: ``100M``, ``1,000``."""
    return f"{x / 1e6:g}M" if x >= 1e6 and x % 1e6 == 0 else f"{x:,.0f}"


def extension_bytes_cap(environ) -> int:
    """The extension size cap in bytes: ``RECIPEKG_MAX_EXTENSION_MB`` if it is a positive
    whole number, else :data:`MAX_EXTENSION_MB`."""
    value = environ.get("RECIPEKG_MAX_EXTENSION_MB", "").strip()
    megabytes = int(value) if value.isdigit() and int(value) > 0 else MAX_EXTENSION_MB
    return megabytes << 20
