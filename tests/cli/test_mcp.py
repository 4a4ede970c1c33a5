"""``recipekg mcp`` as an agent's client meets it: started as a subprocess by the MCP SDK's own
stdio client, its tools listed and each one called; answers are the CLI's compact JSON (``--format summary``) by
default and its whole JSON with ``detail: true``, errors are tool errors with the CLI's message."""

from __future__ import annotations

import json
import subprocess
import sys

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

from support import schema_errors, subprocess_env

TABULAR = "recommend architecture where data = tabular and rows = 30k"
PLAN = "params = 7B and hardware = h100 and gpus = 8"
RECIPE = "model = llama-2-7b and method = qlora and hardware = rtx-4090 and gpus = 1"


def cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "recipekg", *args], env=subprocess_env(),
                          capture_output=True, text=True, timeout=120)


async def session_calls(calls):
    """``(tool names, [CallToolResult ...])`` from a ``recipekg mcp`` subprocess."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "recipekg", "mcp"], env=subprocess_env())
    async with stdio_client(params) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            names = {tool.name for tool in (await session.list_tools()).tools}
            return names, [await session.call_tool(name, arguments) for name, arguments in calls]


@pytest.fixture(scope="module")
def served():
    calls = [("query", {"statements": TABULAR, "detail": True}),
             ("query", {"statements": f"{TABULAR}; recommend fix where symptom = loss-spike", "detail": True}),
             ("plan", {"constraints": PLAN, "detail": True}),
             ("explain", {"choice": "vit", "constraints": "data = images and samples = 3000", "detail": True}),
             ("cite", {"statement": TABULAR, "top": 1}),
             ("cite", {"choice": "lightgbm", "format": "bibtex"}),
             ("query", {"statements": "recommend architecture where data = tabluar"}),
             ("plan", {"constraints": "params = 7B and hardware = h10"}),
             ("cite", {"choice": "lightgbm", "rule": "x"}),
             ("recipe", {"constraints": RECIPE, "detail": True}),
             ("recipe", {"constraints": RECIPE, "emit": "hf-peft"}),
             ("recipe", {"constraints": "data = tabular and rows = 30k", "emit": "deepspeed"}),
             ("query", {"statements": TABULAR}),
             ("plan", {"constraints": PLAN}),
             ("explain", {"choice": "vit", "constraints": "data = images and samples = 3000"}),
             ("recipe", {"constraints": RECIPE}),
             ("plan", {"constraints": "model = llama-2-70b and hardware = a100 and gpus = 8"})]
    return anyio.run(session_calls, calls)


def text(result) -> str:
    assert len(result.content) == 1 and result.content[0].type == "text"
    return result.content[0].text


def test_the_tools_are_listed(served):

    names, _ = served
    assert names == {"query", "plan", "explain", "recipe", "cite", "vocab"}


def test_by_default_the_tools_answer_compactly_as_format_summary(served):
    """An agent's context is small: the decision, key quantities with units and source ids,
    at most 8 KB (a plan's whole answer is 60-80 KB), and how to ask for the rest."""
    _, results = served
    expected = [cli("query", TABULAR, "--format", "summary"),
                cli("plan", *f"where {PLAN}".split(), "--format", "summary"),
                cli("explain", "vit", *"where data = images and samples = 3000".split(), "--format", "summary"),
                cli("recipe", *f"where {RECIPE}".split(), "--format", "summary"),
                cli("plan", *"where model = llama-2-70b and hardware = a100 and gpus = 8".split(), "--format", "summary")]
    for result, done in zip(results[12:], expected):
        assert done.returncode == 0 and not result.is_error, done.stderr
        assert json.loads(text(result)) == json.loads(done.stdout)
        assert len(text(result).encode()) <= 8192 and "detail: true" in json.loads(text(result))["detail"]
        assert schema_errors(json.loads(text(result)), "summary") == []
    query, plan, explain, recipe, big = (json.loads(text(r)) for r in results[12:])
    assert query["decision"]["pick"]["id"] == "gradient-boosted-trees"
    assert query["results"][0]["because"][0]["sources"] == ["chen2016xgboost", "grinsztajn2022", "ke2017"]
    assert plan["fit"]["fits"] is True and plan["quantities"]["gpu_hours"]["unit"] == "GPU-hours"
    assert plan["quantities"]["memory_per_gpu"]["unit"] == "bytes" and plan["verdict"][0].startswith("on 8 GPUs")
    assert explain["choice"]["id"] == "vit" and explain["would_rank_first_if"]
    lr = next(i for i in recipe["sections"]["hyperparameters"] if i["what"] == "peak learning rate")
    assert lr["value"].startswith("0.0002") and lr["sources"] == ["dettmers2023"]
    full = json.loads(cli("plan", *"where model = llama-2-70b and hardware = a100 and gpus = 8".split(),
                          "--format", "json").stdout)
    assert set(big["quantities"]) == {q["name"] for q in full["quantities"] if q["value"] is not None}


def test_query_plan_and_explain_answer_the_cli_json_with_its_sources(served):
    _, results = served
    expected = [cli("query", TABULAR, "--format", "json"),
                cli("query", f"{TABULAR}; recommend fix where symptom = loss-spike", "--format", "json"),
                cli("plan", *f"where {PLAN}".split(), "--format", "json"),
                cli("explain", "vit", *"where data = images and samples = 3000".split(), "--format", "json")]
    for result, done in zip(results[:4], expected):
        assert done.returncode == 0 and not result.is_error
        assert json.loads(text(result)) == json.loads(done.stdout)
    answer = json.loads(text(results[0]))
    assert answer["results"][0]["because"][0]["sources"], "an answer carries its sources"


def test_cite_gives_the_cli_citations(served):
    _, results = served
    csl = cli("cite", "--query", TABULAR, "--top", "1", "--format", "csl-json")
    bibtex = cli("cite", "--choice", "lightgbm", "--format", "bibtex")
    assert not results[4].is_error and json.loads(text(results[4])) == json.loads(csl.stdout)
    assert not results[5].is_error and text(results[5]).strip() == bibtex.stdout.strip()
    assert all(item["author"] for item in json.loads(text(results[4])))


def test_errors_are_tool_errors_with_the_cli_message(served):
    _, results = served
    for result, done in zip(results[6:8], [cli("query", "recommend architecture where data = tabluar"),
                                           cli("plan", *"where params = 7B and hardware = h10".split())]):
        assert done.returncode == 2 and result.is_error
        message = done.stderr.strip().removeprefix("error: ")
        assert message in text(result) and "did you mean" in message
    assert results[8].is_error and "exactly one of statement, choice, rule, paper" in text(results[8])


def test_recipe_gives_the_cli_json_and_its_configuration(served, tmp_path):
    _, results = served
    done = cli("recipe", *f"where {RECIPE}".split(), "--format", "json")
    assert not results[9].is_error and json.loads(text(results[9])) == json.loads(done.stdout)
    out = tmp_path / "hf.json"
    emitted = cli("recipe", *f"where {RECIPE}".split(), "--emit", "hf-peft", "-o", str(out))
    assert emitted.returncode == 0 and json.loads(text(results[10])) == json.loads(out.read_text())
    assert results[11].is_error and "nothing to emit as deepspeed" in text(results[11])


def test_every_tool_result_validates_against_the_published_schema(served, kb):
    """The answer tools' results (query, plan, explain, recipe) validate against ``recipekg
    schema``; cite's CSL-JSON against ``recipekg schema citations``; vocab's word list against
    ``recipekg schema vocab``. (A configuration ``emit`` writes is the trainer's format, checked
    by the trainer's own parser in tests/recipe/test_configs.py; an error is a tool error's text.)"""
    from recipekg.cli.mcp_server import build_server

    _, results = served
    for i in (0, 1, 2, 3, 9):
        assert not results[i].is_error and schema_errors(json.loads(text(results[i]))) == [], i
    assert schema_errors(json.loads(text(results[4])), "citations") == []

    async def run(server):
        return [await server.call_tool("vocab", args) for args in ({"dimension": "symptom"}, {})]

    for got in anyio.run(run, build_server(kb)):
        assert schema_errors(json.loads(got.content[0].text), "vocab") == []


def test_vocab_gives_the_cli_word_list(kb):
    from recipekg.cli.mcp_server import build_server

    from mcp.server.mcpserver.exceptions import ToolError

    async def run(server):
        return [await server.call_tool("vocab", args) for args in ({"dimension": "symptom"}, {})]

    server = build_server(kb)
    one, every = anyio.run(run, server)
    assert json.loads(one.content[0].text) == json.loads(cli("vocab", "symptom", "--format", "json").stdout)
    assert json.loads(every.content[0].text) == json.loads(cli("vocab", "--format", "json").stdout)
    done = cli("vocab", "symptm")
    with pytest.raises(ToolError) as wrong:
        anyio.run(lambda: server.call_tool("vocab", {"dimension": "symptm"}))
    assert done.returncode == 2 and done.stderr.strip().removeprefix("error: ").splitlines()[0] in str(wrong.value)


def test_the_tools_give_the_whole_situation_as_the_cli_does():
    """The situation fields (issue 21: unused, excluded, near_boundary, family members;
    explain's family rules, reasons against and properties) reach an agent unchanged."""
    statement = "recommend architecture where data = text and task = classification and seq-length = 32k and precision = bf16"
    _, (got, why) = anyio.run(session_calls, [
        ("query", {"statements": statement, "detail": True}),
        ("explain", {"choice": "ft-transformer", "constraints": "data = tabular and rows = 20k", "detail": True})])
    answer = json.loads(text(got))
    assert answer == json.loads(cli("query", "--format", "json", statement).stdout)
    assert {e["id"] for e in answer["excluded"]} >= {"bert", "roberta"}
    assert [u["dimension"] for u in answer["unused"]] == ["precision"]
    explained = json.loads(text(why))
    assert explained["member_of"]["id"] == "neural-tabular"
    assert any(x.get("via", {}).get("id") == "neural-tabular" for x in explained["against"])
    assert explained["properties"] and explained["family_rules"]


MALFORMED = [
    (b"{oops", -32700, None),
    (b"\xff\xfe not text", -32700, None),
    (b"[" * 100_000, -32700, None),
    (b"[]", -32600, None),
    (b'[{"jsonrpc": "2.0", "id": 1, "method": "ping"}]', -32600, None),
    (b'"a string"', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 2, "method": 5}', -32600, 2),
    (b'{"jsonrpc": "1.0", "id": 3, "method": "ping"}', -32600, 3),
    (b'{"id": "four", "method": "ping"}', -32600, "four"),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, None),
    (b'{"jsonrpc": "2.0", "id": 6, "method": "ping", "params": 7}', -32600, 6),
    (b'{"jsonrpc": "2.0", "id": 7}', -32600, 7),
]
INITIALIZE = {"jsonrpc": "2.0", "id": 100, "method": "initialize",
              "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}}}


def test_every_malformed_message_gets_its_json_rpc_error_and_the_server_goes_on():
    """The SDK's transport drops what it cannot parse; the guard answers it (-32700 for what
    is not JSON, -32600 for JSON that is not a JSON-RPC message), with the message's id when
    it has a usable one, and the session then works as before."""
    proc = subprocess.Popen([sys.executable, "-m", "recipekg", "mcp"], env=subprocess_env(),
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        for line, _, _ in MALFORMED:
            proc.stdin.write(line + b"\n")
        proc.stdin.write(json.dumps(INITIALIZE).encode() + b"\n")
        proc.stdin.flush()
        replies = [json.loads(proc.stdout.readline()) for _ in range(len(MALFORMED) + 1)]
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)
    errors, answer = replies[:-1], replies[-1]
    assert [(r["error"]["code"], r["id"]) for r in errors] == [(code, ident) for _, code, ident in MALFORMED]
    assert all(r["jsonrpc"] == "2.0" and r["error"]["message"] for r in errors)
    assert answer["id"] == 100 and answer["result"]["serverInfo"]["name"] == "recipekg"
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr.read()
