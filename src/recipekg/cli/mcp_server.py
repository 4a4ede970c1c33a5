"""``recipekg mcp``: the knowledge base for LLM agents over the Model Context Protocol (stdio),
with the official ``mcp`` SDK (``pip install 'recipekg[mcp]'``), imported here only.

    $ recipekg mcp                       # an MCP server on stdin/stdout
    $ recipekg mcp --kb team-rules.ttl   # with an extension

Tools (:class:`recipekg.agent.AgentTools`): ``query``, ``plan``, ``explain``, ``recipe``,
``cite`` and ``vocab``. The answering tools return the compact answer (``--format summary``:
the decision, key quantities with units, source ids; at most 8 KB) unless ``detail`` is true,
then the JSON the command line prints with ``--format json``; a user's error is an MCP tool
error carrying the CLI's message.

The SDK serves stdio; what it drops silently, a line that is not JSON or not a JSON-RPC
message, gets its JSON-RPC error here (:mod:`recipekg.cli.jsonrpc`: -32700, -32600), written
by the one thread that writes every line the client reads.
"""

from __future__ import annotations

import click

from recipekg.cli.common import kb_option, load_kb, user_errors
from recipekg.errors import RecipeKGError, UsageError

INSTRUCTIONS = (
    "recipekg answers questions about training machine-learning models (architecture by data type and "
    "size, optimizers, scaling laws and compute budgets, memory and fit, training instabilities), each "
    "answer with the rules that fired and the papers behind them. Statements: `recommend <architecture|"
    "optimizer|approach|technique|fix> where <dimension> <op> <value> and ...`, `plan where params = 7B and "
    "hardware = h100 and gpus = 8`, `explain <choice> where ...`, `recipe where ...` (the whole training recipe, "
    "with a DeepSpeed or Hugging Face configuration). Values: names (tabular), numbers (30k, 7B, "
    "1.4T), quantities (80GB, 3 days). A misspelled name is an error that lists what is expected.")

QUERY_DOC = ("Answer one or more recipekg statements (separated by ';'), e.g. 'recommend architecture where "
             "data = tabular and rows = 30k' or 'recommend fix where symptom = loss-spike'. Returns the JSON "
             "answer: ranked results, each with the rules that fired and their sources (papers, with what each "
             "paper does for the claim).")
PLAN_DOC = ("Size a training run: give constraints such as 'params = 7B and hardware = h100 and gpus = 8' "
            "(dimensions: params, tokens, flops, gpus, time, hardware, gpu-memory, mfu, model, method, seq-length, "
            "batch-size, attention, grad-precision, master-weights, optimizer-step, kv-precision, headroom, price, "
            "carbon-intensity, ...). Returns "
            "the JSON plan: the summary (verdict and what to change first), tokens, FLOPs, memory per GPU in its "
            "parts, whether it fits and the changes that would make it (recommendations), GPU-hours, energy, cost, "
            "feasibility (gpus_for_time when a time budget is missed), each quantity with its formula and sources.")
EXPLAIN_DOC = ("Why a choice ranks where it does under constraints, and what change would rank it first: "
               "choice 'vit', constraints 'data = images and samples = 3000'. Returns the JSON explanation.")
CITE_DOC = ("The papers behind exactly one of: a statement's answer (statement, optionally top N results), a "
            "choice (e.g. lightgbm), a rule id, or a paper id. format: csl-json (default), bibtex, ris or text.")
RECIPE_DOC = ("The whole training recipe for a situation: give constraints such as 'data = text and task = "
              "generation and method = pretrain and params = 7B and hardware = h100 and gpus = 64' or 'model = "
              "llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1'. Returns the JSON recipe: sections "
              "(architecture, approach, size, data, optimizer, hyperparameters, precision, stability, parallelism, "
              "memory, time, cost, risks), each item with its value, why and sources, or unsourced. With emit "
              "(deepspeed or hf-peft), returns that configuration instead.")
DETAIL_DOC = (" By default the answer is compact (at most about 8 KB): the decision, key quantities with their "
              "units and the ids of the sources, with 'omitted' counting what was left out; detail: true returns "
              "the whole answer, every rule, derivation and source with its role.")
VOCAB_DOC = "The query language's dimensions and their values; give a dimension (e.g. data) for one."


def build_server(kb):
    """The MCP server (``mcp.server.mcpserver.MCPServer``) over ``kb``."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    from recipekg.agent import AgentTools
    from recipekg.version import __version__

    tools = AgentTools(kb)
    server = MCPServer("recipekg", version=__version__, instructions=INSTRUCTIONS)

    def tool_error(work):
        try:
            return work()
        except RecipeKGError as exc:
            raise ToolError(str(exc)) from None

    @server.tool(description=QUERY_DOC + DETAIL_DOC, structured_output=False)
    def query(statements: str, detail: bool = False) -> str:
        return tool_error(lambda: tools.query(statements, detail))

    @server.tool(description=PLAN_DOC + DETAIL_DOC, structured_output=False)
    def plan(constraints: str = "", detail: bool = False) -> str:
        return tool_error(lambda: tools.plan(constraints, detail))

    @server.tool(description=EXPLAIN_DOC + DETAIL_DOC, structured_output=False)
    def explain(choice: str, constraints: str = "", detail: bool = False) -> str:
        return tool_error(lambda: tools.explain(choice, constraints, detail))

    @server.tool(description=RECIPE_DOC + DETAIL_DOC, structured_output=False)
    def recipe(constraints: str = "", emit: str = "", detail: bool = False) -> str:
        return tool_error(lambda: tools.recipe(constraints, emit, detail))

    @server.tool(description=CITE_DOC, structured_output=False)
    def cite(statement: str = "", choice: str = "", rule: str = "", paper: str = "", top: int = 0,
             format: str = "csl-json") -> str:
        return tool_error(lambda: tools.cite(statement, choice, rule, paper, top, format))

    @server.tool(description=VOCAB_DOC, structured_output=False)
    def vocab(dimension: str = "") -> str:
        return tool_error(lambda: tools.vocab(dimension))

    return server


@click.command()
@kb_option
@user_errors
def mcp(extensions):
    """Serve the knowledge base to LLM agents over the Model Context Protocol (stdio)."""
    from importlib.util import find_spec

    if find_spec("mcp") is None or find_spec("mcp.server.mcpserver") is None:  # the optional extra, 2.x
        raise UsageError("recipekg mcp needs the MCP SDK 2.x: pip install 'recipekg[mcp]'")
    from recipekg.cli.jsonrpc import guarded_stdio

    server = build_server(load_kb(extensions))
    guarded_stdio(lambda: server.run("stdio"))
