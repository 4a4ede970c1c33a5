"""What the fast lane (:mod:`recipekg.cli.fast`) answers without click: for each command it
shadows, a table of the options it reads, the arguments it takes, and the click parameters it
deliberately leaves to click.

The table is checked against the click commands (``tests/cli/test_hot_path.py``): it must
name every parameter of each command it shadows, with the same spellings, kind, choices,
repetition and default, or list it in ``to_click``. The reader is strict: whatever it is not
sure click would read the same way (an unknown or repeated option, ``-qVALUE``, a value
starting with ``-``, a number click would parse but not as plain digits, ``--``, ``-``) makes
it return None, and click answers::

    >>> read(COMMANDS["cite"], ["--query", "plan", "--top=2", "--format", "ris"])
    {'statement': 'plan', 'top': 2, 'fmt': 'ris', 'extensions': [], 'words': []}
    >>> read(COMMANDS["plan"], ["where", "gpus", "=", "8", "--no-cache", "--kb", "x.ttl"])
    {'no_cache': True, 'extensions': ['x.ttl'], 'fmt': 'text', 'detail': False, 'words': ['where', 'gpus', '=', '8']}
    >>> read(COMMANDS["cite"], ["--top", "01", "--query", "plan"]) is None  # click reads 01 as 1
    True
    >>> read(COMMANDS["query"], ["-f", "q.rkg"])["path"], read(COMMANDS["vocab"], ["gpus"])["words"]
    ('q.rkg', ['gpus'])

It also writes as ``click.echo`` writes (:func:`echo`, and :class:`Pacified` for a closed pipe),
for the fast lane and the shell's session (:mod:`recipekg.cli.session`).

This module imports nothing beyond the standard library (and the registry of output formats,
:mod:`recipekg.render.formats`, which imports nothing): it runs before the fast lane decides.
"""

from __future__ import annotations


from recipekg.render.formats import names

FLAG, TEXT, FILE, COUNT, CHOICE = "flag", "text", "file", "count", "choice"


class Option:
    """One option of a fast-lane command.

    ``dest`` is the click parameter (and the keyword of the answering function); ``names``
    its spellings; ``kind`` what it takes: ``flag`` (nothing), ``text`` (any value),
    ``file`` (``click.Path(readable=False)``, which checks nothing: a directory, a missing or unreadable file
    is the project's error, in the command's format; the fast lane takes any path but ''), ``count``
    (``click.IntRange(min=1)``), ``choice`` (one of ``choices``). A ``repeatable`` option
    collects a list. ``needed``: the fast lane answers only calls that give it. ``dash``: click
    also reads ``-`` (stdin), which the fast lane leaves to it."""

    __slots__ = ("dest", "names", "kind", "choices", "repeatable", "default", "needed", "dash")

    def __init__(self, dest: str, *names: str, kind: str = TEXT, choices: tuple = (), repeatable: bool = False,
                 default=None, needed: bool = False, dash: bool = False) -> None:
        self.dest, self.names, self.kind, self.choices = dest, names, kind, choices
        self.repeatable, self.default, self.needed, self.dash = repeatable, default, needed, dash

    def __repr__(self) -> str:
        return f"Option({self.dest!r}, {', '.join(map(repr, self.names))}, kind={self.kind!r})"

    def accepts(self, value: str) -> bool:
        """Whether click would take ``value`` as the fast lane reads it.

        >>> KB.accepts("x.ttl"), KB.accepts(""), TOP.accepts("3"), TOP.accepts("0"), TOP.accepts("³")
        (True, False, True, False, False)
        """
        if self.kind == CHOICE:
            return value in self.choices
        if self.kind == FILE:
            return bool(value)
        if self.kind == COUNT:
            return value.isascii() and value.isdigit() and value[0] != "0"
        return True


class Command:
    """A command the fast lane answers: its ``options``, its click ``arguments`` (name →
    nargs, -1 for any number; ``optional``: the ones of nargs 1 click does not require), the
    click parameters it leaves to click whenever they are given (``to_click``: name → the value
    it assumes when they are not), and the function of :mod:`recipekg.cli.respond` that
    answers it."""

    __slots__ = ("options", "arguments", "to_click", "answer", "optional")

    def __init__(self, options: tuple, arguments: dict, to_click: dict, answer: str, optional: tuple = ()) -> None:
        self.options, self.arguments, self.to_click, self.answer = options, arguments, to_click, answer
        self.optional = optional

    def option(self, name: str) -> Option | None:
        """The option spelt ``name``, or None."""
        return next((o for o in self.options if name in o.names), None)


#: The output formats of answers, reports and citations: the registry's (recipekg.render.formats).
FORMATS, REPORT_FORMATS, CITE_FORMATS = names("answer"), names("report"), names("citation")
#: The configurations ``--emit`` writes (recipekg.recipe.emit.FORMATS; a test keeps them equal).
EMIT_FORMATS = ("deepspeed", "hf-peft")

KB = Option("extensions", "--kb", kind=FILE, repeatable=True, default=())
FORMAT = Option("fmt", "--format", kind=CHOICE, choices=FORMATS, default="text")
REPORT_FORMAT = Option("fmt", "--format", kind=CHOICE, choices=REPORT_FORMATS, default="text")
NO_CACHE = Option("no_cache", "--no-cache", kind=FLAG, default=False)
DETAIL = Option("detail", "--detail", kind=FLAG, default=False)
TOP = Option("top", "--top", kind=COUNT)

COMMANDS = {
    # query: the statement, or -f FILE (read by the answering function: recipekg.cli.respond.respond_file)
    "query": Command((KB, FORMAT, NO_CACHE, DETAIL, Option("path", "-f", "--file", kind=FILE, dash=True)),
                     {"statement": 1}, {"engine": "native", "endpoint": None, "emit": None, "output": None}, "respond",
                     optional=("statement",)),
    "explain": Command((KB, FORMAT, NO_CACHE, DETAIL), {"choice": 1, "constraints": -1}, {}, "respond"),
    "plan": Command((KB, FORMAT, NO_CACHE, DETAIL), {"constraints": -1}, {}, "respond"),
    "recipe": Command((KB, FORMAT, NO_CACHE, DETAIL), {"constraints": -1}, {"emit": None, "output": None},
                      "respond"),
    "cite": Command((Option("statement", "-q", "--query", needed=True), TOP,
                     Option("fmt", "--format", kind=CHOICE, choices=CITE_FORMATS, default="text"), KB),
                    {}, {"choice": None, "rule": None, "paper": None, "output": None}, "respond_cite"),
    "vocab": Command((KB, REPORT_FORMAT, NO_CACHE), {"dimension": 1}, {}, "respond_vocab", optional=("dimension",)),
    # shell: answered by recipekg.cli.session (the prompt on a terminal, the lines of stdin from a pipe)
    "shell": Command((KB, FORMAT, NO_CACHE, DETAIL), {}, {}, "respond_shell"),
}


def read(command: Command, args: list[str]) -> dict | None:
    """The options of ``args`` by ``dest`` (defaults filled in) and the other words under
    ``"words"``; None when click should read them."""
    given: dict = {}
    words = []
    rest = iter(args)
    for arg in rest:
        if arg == "-" or not arg.startswith("-"):
            if arg == "-":
                return None  # stdin, or a word click reads its own way
            words.append(arg)
            continue
        name, eq, value = arg.partition("=") if arg.startswith("--") else (arg, "", "")
        option = command.option(name)
        if option is None or (option.dest in given and not option.repeatable):
            return None  # -f, --engine, --help, --, -qVALUE, a repeated option ...: click's job
        if option.kind == FLAG:
            if eq:
                return None
            given[option.dest] = True
            continue
        if not eq:
            value = next(rest, None)
            if value is None or value.startswith("-"):
                return None  # click reports the missing value, or reads it its own way
        if not option.accepts(value):
            return None
        value = int(value) if option.kind == COUNT else value
        given[option.dest] = given.get(option.dest, []) + [value] if option.repeatable else value
    return _complete(command, given, words)


def _complete(command: Command, given: dict, words: list[str]) -> dict | None:
    """``given`` with every option's default, or None when the words do not fill the
    arguments or a needed option is missing."""
    fixed = sum(n for n in command.arguments.values() if n > 0)
    required = fixed - sum(command.arguments[name] for name in command.optional)
    if len(words) < required or (len(words) > fixed and -1 not in command.arguments.values()):
        return None  # a missing argument or one too many: click's job
    for option in command.options:
        if option.dest not in given:
            if option.needed:
                return None
            given[option.dest] = list(option.default) if option.repeatable else option.default
    given["words"] = words
    return given


# ---------------------------------------------------------------- writing as click writes

def echo(text: str, stream) -> None:
    """``click.echo``: the text and a newline in one write, then flush, every control
    character written out (:func:`recipekg.errors.printable`): no answer or message sends the
    terminal an escape sequence."""
    from recipekg.errors import printable

    stream.write(printable(text) + "\n")
    stream.flush()


class Pacified:
    """click's ``_PacifyFlushWrapper``: a closed pipe is not an error at interpreter exit."""

    def __init__(self, wrapped) -> None:
        self.wrapped = wrapped

    def flush(self) -> None:
        try:
            self.wrapped.flush()
        except OSError as e:
            import errno

            if e.errno != errno.EPIPE:
                raise

    def __getattr__(self, attr):
        return getattr(self.wrapped, attr)
