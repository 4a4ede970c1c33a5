"""The compiled snapshot: plain data, never trusted when damaged, rebuilt when an input changes,
safe with several processes, and the same answers as a graph parsed by rdflib."""

from __future__ import annotations

import json
import marshal
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import recipekg
from recipekg.knowledge import resources as files
from recipekg.knowledge import loader, snapshot
from recipekg.knowledge.shards import materialize
from recipekg.knowledge.compiler import compile_graph
from recipekg.errors import KBError, RecipeKGError
from recipekg.api import KnowledgeBase
from recipekg.query.parser import parse
from recipekg.knowledge.rdfio import Lit, Triple
from recipekg.api import answer

from support import REPO
QUERIES = sorted((REPO / "queries").glob("*.rkg"))
TABULAR = "recommend architecture where data = tabular and rows = 30k"


@pytest.fixture
def data_root(tmp_path, monkeypatch):
    """A private copy of the bundled ontology and KB, and a private cache."""
    root = tmp_path / "data"
    for part in ("ontology", "kb"):
        shutil.copytree(Path(files._data_root()) / part, root / part)
    monkeypatch.setattr(files, "_ROOT", [str(root)])
    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(tmp_path / "cache"))
    return root


@pytest.fixture
def builds(monkeypatch):
    """How many times the snapshot was built from the Turtle files."""
    count = {"n": 0}
    real = loader.compile_files

    def counting(paths):
        count["n"] += 1
        return real(paths)

    monkeypatch.setattr(loader, "compile_files", counting)
    return count


def _cache_file() -> Path:
    return Path(snapshot.snapshot_path(files.bundled_paths()))


def _reference(kb) -> list:
    return kb.query(TABULAR)


# ============================================================================ plain data

def test_the_snapshot_file_is_a_header_and_marshalled_builtins(data_root, builds):
    kb = KnowledgeBase.load()
    raw = _cache_file().read_bytes()
    assert raw.startswith(snapshot.FILE_PREFIX)
    header, start = snapshot.read_header(raw)
    payload = raw[start:]
    assert header["magic"] == "recipekg-snapshot" and header["codec"] == "marshal-shards"
    assert header["length"] == len(payload)
    (paths, core), shards = marshal.loads(payload[:header["core"]]), payload[header["core"]:]
    assert type(paths) is list and all(type(p) is list for p in paths)
    tables = []

    def walk(x):
        assert type(x) in (dict, list, tuple, str, int, float, bool, type(None)), type(x)
        if type(x) is tuple:  # a large container: kind, size, a table of shards
            assert x[0] in ("map", "list") and type(x[1]) is int
            tables.append(x)
            for row in x[2]:
                offset, length = row[-4], row[-3]
                walk(marshal.loads(shards[offset:offset + length]))
        elif type(x) is dict:
            for k, v in x.items():
                assert type(k) is str
                walk(v)
        elif type(x) is list:
            for v in x:
                walk(v)

    walk(core)
    assert any(t[0] == "map" for t in tables) and any(t[0] == "list" for t in tables)
    snap = materialize(kb.snap)
    assert snap == materialize(KnowledgeBase.load(use_cache=False).snap)
    assert json.loads(json.dumps(snap)) == snap  # nothing JSON could not say either


def test_fresh_and_cached_snapshots_are_the_same_data_in_the_same_order(data_root):
    fresh = KnowledgeBase.load(use_cache=False).snap
    KnowledgeBase.load()
    cached = KnowledgeBase.load().snap
    assert json.dumps(fresh) == json.dumps(materialize(cached))


# ============================================================================ damaged files

def _truncate(path: Path) -> None:
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])


def _flip_core_byte(path: Path) -> None:
    raw = bytearray(path.read_bytes())
    header, start = snapshot.read_header(raw)
    raw[start + header["core"] // 2] ^= 0x40
    path.write_bytes(bytes(raw))


def _other_key(path: Path) -> None:
    raw = path.read_bytes()
    header, start = snapshot.read_header(raw)
    header["key"] = "0" * 64
    path.write_bytes(snapshot.header_bytes(header) + raw[start:])


def _garbage(path: Path) -> None:
    path.write_bytes(os.urandom(5000))


def _empty(path: Path) -> None:
    path.write_bytes(b"")


def _not_a_snapshot(path: Path) -> None:
    """A well-formed file whose payload is some other data (the checksum is right)."""
    header, _ = snapshot.read_header(path.read_bytes())
    header.pop("crc32")
    snapshot._write(str(path), header, marshal.dumps(["not", "a", "snapshot"]), b"")


def _foreign(path: Path) -> None:
    """A whole, valid snapshot of another KB (bundled + an extension) under this name."""
    ext = path.parent / "ext.ttl"
    ext.write_text(EXTENSION.format(text="Foreign snapshot rule."), encoding="utf-8")
    KnowledgeBase.load([ext])
    other = Path(snapshot.snapshot_path(files.bundled_paths() + [str(ext)]))
    shutil.copyfile(other, path)


def _deep_header(path: Path) -> None:
    """A header nested 100,000 lists deep (marshal's own limit refuses it)."""
    blob = b"[\x01\x00\x00\x00" * 100_000 + b"N"
    path.write_bytes(snapshot.FILE_PREFIX + len(blob).to_bytes(4, "big") + blob + b"x" * 10)


def _header_longer_than_the_file(path: Path) -> None:
    path.write_bytes(snapshot.FILE_PREFIX + (1 << 19).to_bytes(4, "big") + b"x" * 10)


def _symlink_to_dev_zero(path: Path) -> None:
    path.unlink()
    path.symlink_to("/dev/zero")


def _fifo(path: Path) -> None:
    path.unlink()
    os.mkfifo(path)


def _forged_inputs(path: Path) -> None:
    """A header whose checksum is right but whose fingerprints are not lists of five."""
    raw = path.read_bytes()
    header, start = snapshot.read_header(raw)
    payload = raw[start:]
    header.pop("crc32")
    header["inputs"] = [1, 2, 3]
    snapshot._write(str(path), header, payload[:header["core"]], payload[header["core"]:])


@pytest.mark.parametrize("damage", [_truncate, _flip_core_byte, _other_key, _garbage, _empty,
                                    _not_a_snapshot, _foreign, _deep_header, _symlink_to_dev_zero, _fifo,
                                    _forged_inputs, _header_longer_than_the_file])
def test_a_damaged_or_foreign_snapshot_is_rebuilt_never_trusted(data_root, builds, damage):
    reference = _reference(KnowledgeBase.load())
    assert builds["n"] == 1
    damage(_cache_file())
    before = builds["n"]
    assert _reference(KnowledgeBase.load()) == reference
    assert builds["n"] == before + 1, "the damaged file was trusted"
    assert _reference(KnowledgeBase.load()) == reference
    assert builds["n"] == before + 1, "the rebuilt snapshot was not cached"


def test_a_damaged_shard_is_rebuilt_when_read_and_the_answer_stays_right(data_root, builds):
    """Flip one byte in every shard: the first shard a query reads fails its CRC, the snapshot
    is rebuilt from the Turtle files once, the answer is the same, and the cache is rewritten."""
    reference = _reference(KnowledgeBase.load())
    path = _cache_file()
    raw = bytearray(path.read_bytes())
    header, end = snapshot.read_header(raw)
    start = end + header["core"]
    _, core = marshal.loads(bytes(raw[end:start]))
    rows = []

    def tables(x):
        if type(x) is tuple:
            rows.extend(x[2])
        elif type(x) is dict:
            for v in x.values():
                tables(v)
        elif type(x) is list:
            for v in x:
                tables(v)

    tables(core)
    for row in rows:
        raw[start + row[-4] + row[-3] // 2] ^= 0x40
    path.write_bytes(bytes(raw))
    before = builds["n"]
    assert _reference(KnowledgeBase.load()) == reference
    assert builds["n"] == before + 1
    assert _reference(KnowledgeBase.load()) == reference
    assert builds["n"] == before + 1, "the rebuilt snapshot was not cached"


def test_an_unwritable_cache_only_costs_a_rebuild(data_root, builds, monkeypatch, tmp_path):
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("x")
    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(blocker / "cache"))
    assert KnowledgeBase.load().query(TABULAR)
    assert KnowledgeBase.load().query(TABULAR)
    assert builds["n"] == 2


# ============================================================================ inputs change

def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def _labels(answer: dict) -> dict[str, str]:
    """Every ranked choice's label, a family entry's members included."""
    return {m["id"]: m["label"] for r in answer["results"] for m in (r, *r.get("members", ()))}


def test_editing_a_kb_file_changes_the_next_answer(data_root):
    arch = data_root / "kb" / "architectures.ttl"
    first = KnowledgeBase.load().query(TABULAR)[0]
    labels = _labels(first)
    assert labels["lightgbm"] == "LightGBM"
    # same size, same second: only the content (and the racy-stat rule) tells the difference
    for new in ("LightGBX", "LightGBY", "LightGBZ"):
        _edit(arch, f'rdfs:label "{labels["lightgbm"]}"', f'rdfs:label "{new}"')
        labels = _labels(KnowledgeBase.load().query(TABULAR)[0])
        assert labels["lightgbm"] == new


def test_an_edit_that_keeps_size_and_mtime_is_still_seen(data_root):
    arch = data_root / "kb" / "architectures.ttl"
    KnowledgeBase.load()
    st = arch.stat()
    _edit(arch, 'rdfs:label "LightGBM"', 'rdfs:label "LightGBQ"')
    os.utime(arch, ns=(st.st_atime_ns, st.st_mtime_ns))  # put the old mtime back
    assert arch.stat().st_size == st.st_size and arch.stat().st_mtime_ns == st.st_mtime_ns
    labels = _labels(KnowledgeBase.load().query(TABULAR)[0])
    assert labels["lightgbm"] == "LightGBQ"


def test_adding_a_kb_file_changes_the_next_answer(data_root):
    before = KnowledgeBase.load().query(TABULAR)[0]
    (data_root / "kb" / "zz-extra.ttl").write_text(EXTENSION.format(text="An added file's rule."),
                                                   encoding="utf-8")
    after = KnowledgeBase.load().query(TABULAR)[0]
    assert "An added file's rule." not in json.dumps(before)
    assert "An added file's rule." in json.dumps(after)


def test_editing_an_extension_changes_the_next_answer(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(tmp_path / "cache"))
    ext = tmp_path / "ext.ttl"
    for text in ("Extension rule, first wording.", "Extension rule, other wording."):
        ext.write_text(EXTENSION.format(text=text), encoding="utf-8")
        kb = recipekg.load([ext])
        assert kb.snap["validated"] == [str(ext)]  # the verdict is part of the snapshot
        assert text in json.dumps(kb.query(TABULAR))


def test_a_changed_compiler_rebuilds_the_snapshot_without_a_format_bump(data_root, builds, monkeypatch):
    """The code that built a snapshot is part of its key: a module of the compiler edited in
    place (same size, same mtime, as a checkout can leave it) makes the next load rebuild."""
    import types

    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    probe = data_root / "probe_compiler.py"
    probe.write_text("STEP = 'a'\n", encoding="utf-8")
    module = types.ModuleType("recipekg._probe_compiler")
    module.__file__ = str(probe)
    monkeypatch.setitem(sys.modules, "recipekg._probe_compiler", module)
    KnowledgeBase.load()
    KnowledgeBase.load()
    assert builds["n"] == 1, "unchanged code and KB: served from the cache"
    assert str(probe) in snapshot.code_files()
    st = probe.stat()
    probe.write_text("STEP = 'b'\n", encoding="utf-8")
    os.utime(probe, ns=(st.st_atime_ns, st.st_mtime_ns))
    KnowledgeBase.load()
    assert builds["n"] == 2, "a changed compiler module rebuilds"


def test_a_removed_compiler_module_rebuilds_the_snapshot(data_root, builds, monkeypatch):
    """A module that built the cached snapshot and is gone since (moved to another package, or
    removed by an upgrade) makes the next load rebuild, never fail on the missing file."""
    import types

    probe = data_root / "probe_moved.py"
    probe.write_text("STEP = 'a'\n", encoding="utf-8")
    module = types.ModuleType("recipekg._probe_moved")
    module.__file__ = str(probe)
    monkeypatch.setitem(sys.modules, "recipekg._probe_moved", module)
    KnowledgeBase.load()
    monkeypatch.delitem(sys.modules, "recipekg._probe_moved")
    probe.unlink()
    kb = KnowledgeBase.load()
    assert builds["n"] == 2 and kb.query(TABULAR)[0]["results"], "rebuilt, and it answers"


def test_a_touched_file_is_hashed_once_and_not_rebuilt(data_root, builds, monkeypatch):
    monkeypatch.setattr(snapshot, "RACY_NS", 0)  # the copies are brand new; trust them at once
    KnowledgeBase.load()
    hashed = {"n": 0}
    real_key = snapshot.input_key

    def counting_key(paths):
        hashed["n"] += 1
        return real_key(paths)

    monkeypatch.setattr(snapshot, "input_key", counting_key)
    KnowledgeBase.load()
    assert (builds["n"], hashed["n"]) == (1, 0), "unchanged fingerprints need no hashing"
    arch = data_root / "kb" / "architectures.ttl"
    os.utime(arch, ns=(arch.stat().st_atime_ns, arch.stat().st_mtime_ns - 10**9))
    KnowledgeBase.load()
    assert (builds["n"], hashed["n"]) == (1, 1), "same content: hash, do not rebuild"
    KnowledgeBase.load()
    assert (builds["n"], hashed["n"]) == (1, 1), "the new fingerprints were recorded"


def test_a_broken_extension_is_refused_and_its_verdict_not_cached(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(tmp_path / "cache"))
    ext = tmp_path / "ext.ttl"
    ext.write_text(EXTENSION.format(text="x").replace("paper:grinsztajn2022", "paper:nobody2099"),
                   encoding="utf-8")
    for _ in range(2):
        with pytest.raises(KBError):
            recipekg.load([ext])


def test_validation_without_shacl_is_explicit_and_cached_apart(tmp_path, monkeypatch):
    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(tmp_path / "cache"))
    ext = tmp_path / "ext.ttl"
    ext.write_text(EXTENSION.format(text="Checked without shapes."), encoding="utf-8")
    quick = recipekg.load([ext], shacl=False)
    assert quick.snap["shacl"] is False and quick.snap["validated"] == [str(ext)]
    full = recipekg.load([ext])
    assert "shacl" not in full.snap
    monkeypatch.setenv("RECIPEKG_SHACL", "0")
    assert recipekg.load([ext]).snap["shacl"] is False
    assert quick.query(TABULAR) == full.query(TABULAR)


# ============================================================================ processes

def test_several_processes_at_once_build_read_and_agree(tmp_path):
    code = ("import json, recipekg\n"
            "out = [recipekg.load().query(%r) for _ in range(3)]\n"
            "assert out[0] == out[1] == out[2]\n"
            "print(json.dumps(out[0]))\n") % TABULAR
    env = dict(os.environ, RECIPEKG_CACHE_DIR=str(tmp_path / "cache"))
    if Path(recipekg.__file__).resolve().is_relative_to((REPO / "src").resolve()):
        env["PYTHONPATH"] = str(REPO / "src")
    procs = [subprocess.Popen([sys.executable, "-c", code], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(4)]
    outputs = [p.communicate(timeout=120) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1][-2000:] for o in outputs]
    answers = {o[0] for o in outputs}
    assert len(answers) == 1
    assert json.loads(answers.pop()) == recipekg.load().query(TABULAR)
    leftovers = [p.name for p in (tmp_path / "cache").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


# ============================================================================ rdflib path

def rdflib_triples(paths) -> list[Triple]:
    """The merged files parsed by rdflib, in rdfio's form (IRIs as str, literals as Lit)."""
    from rdflib import BNode, Graph, Literal
    from rdflib.namespace import RDF, XSD

    out = []
    for path in paths:
        g = Graph()
        g.parse(path, format="turtle", publicID=Path(path).resolve().as_uri())

        def term(t):
            if isinstance(t, Literal):
                if t.language:
                    return Lit(str(t), str(RDF.langString), t.language)
                return Lit(str(t), str(t.datatype or XSD.string), None)
            if isinstance(t, BNode):
                return "_:" + str(t)
            return str(t)

        out += [Triple(str(s), str(p), term(o)) for s, p, o in g]
    return out


@pytest.fixture(scope="module")
def rdflib_snapshots():
    triples = rdflib_triples(files.bundled_files())
    raw = compile_graph(triples)
    raw["triples"] = len(triples)
    return {"compiled": raw, "cached form": marshal.loads(marshal.dumps(raw))}


@pytest.mark.parametrize("form", ["compiled", "cached form"])
def test_the_rdflib_path_gives_the_snapshot_path_s_answers(kb, rdflib_snapshots, form):
    other = rdflib_snapshots[form]
    assert other["triples"] == kb.snap["triples"]
    for path in QUERIES:
        for stmt in parse(path.read_text(encoding="utf-8")):
            assert answer(stmt, kb.snap) == answer(stmt, other), stmt.text


def _vocabulary(snap):
    return {n: sorted({snap["nodes"][v]["id"] for v in d["values"].values()})
            for n, d in snap["dimensions"].items() if d["kind"] == "categorical" and d["values"]}


NUMERIC = {"samples": ["50", "3k", "30k", "2M"], "params": ["100M", "7B", "70B"], "gpus": ["1", "8", "512"],
           "time": ["2h", "3 days", "2 weeks"], "tokens": ["1B", "2T"], "gpu-memory": ["24GB", "80GB"],
           "seq-length": ["512", "128k"], "batch-size": ["32", "4096"]}


@st.composite
def statements(draw, snap):
    cats = _vocabulary(snap)
    parts = []
    for dim in draw(st.lists(st.sampled_from(sorted(cats)), max_size=3, unique=True)):
        values = cats[dim]
        form = draw(st.integers(0, 4))
        if form <= 2:
            parts.append(f"{dim} = {draw(st.sampled_from(values))}")
        elif form == 3:
            parts.append(f"{dim} != {draw(st.sampled_from(values))}")
        else:
            picked = draw(st.lists(st.sampled_from(values), min_size=1, max_size=3, unique=True))
            parts.append(f"{dim} in ({', '.join(picked)})")
    for dim in draw(st.lists(st.sampled_from(sorted(NUMERIC)), max_size=2, unique=True)):
        op = draw(st.sampled_from(["=", "<", ">=", "!=", "between"]))
        if op == "between":
            a, b = sorted(draw(st.lists(st.integers(0, len(NUMERIC[dim]) - 1), min_size=2, max_size=2)))
            parts.append(f"{dim} between {NUMERIC[dim][a]} and {NUMERIC[dim][b]}")
        else:
            parts.append(f"{dim} {op} {draw(st.sampled_from(NUMERIC[dim]))}")
    where = " where " + " and ".join(parts) if parts else ""
    head = draw(st.sampled_from(["recommend " + k for k in sorted(snap["kinds"])] + ["explain vit", "explain adamw",
                                                                                 "explain rollback-checkpoint"]))
    return head + where


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_the_rdflib_path_agrees_on_generated_queries(kb, rdflib_snapshots, data):
    text = data.draw(statements(kb.snap))
    other = rdflib_snapshots["compiled"]
    try:
        (stmt,) = parse(text)
        expected = answer(stmt, kb.snap)
    except RecipeKGError as exc:
        with pytest.raises(type(exc)):
            answer(parse(text)[0], other)
        return
    assert answer(stmt, other) == expected, text


from support import EXTENSION  # noqa: E402  (a valid one-rule extension, "{text}" to fill)


# ============================================================================ cost that does not grow

def _shards_read(kb, text: str) -> int:
    source = kb.snap["nodes"].source
    before = source.loads
    kb.query(text)
    return source.loads - before


def test_a_query_reads_about_as_many_shards_on_a_kb_ten_times_larger(tmp_path, monkeypatch):
    """The cost of a cold query follows the rules it reads, not the size of the KB: on the
    bundled KB plus synthetic triples (about 8 per node, so 80 per bundled node make it more
    than ten times larger), the same statement decodes about as many shards."""
    from benchmarks.synthetic import generate

    monkeypatch.setenv("RECIPEKG_CACHE_DIR", str(tmp_path / "cache"))
    big = tmp_path / "synthetic.ttl"
    generate(str(big), 80 * len(KnowledgeBase.load().snap["nodes"]))
    statement = "recommend architecture where data = tabular and rows = 30k"
    KnowledgeBase.load(), KnowledgeBase.load([big], shacl=False)  # build both caches
    small_kb, big_kb = KnowledgeBase.load(), KnowledgeBase.load([big], shacl=False)
    assert len(big_kb.snap["nodes"]) > 10 * len(small_kb.snap["nodes"])
    small, large = _shards_read(small_kb, statement), _shards_read(big_kb, statement)
    assert small > 0 and large <= 2 * small, (small, large)
    assert materialize(big_kb.query(statement)) == materialize(small_kb.query(statement))


def test_a_table_row_of_the_wrong_shape_is_damage_not_a_crash(data_root, builds):
    """A core whose CRC is right but whose shard table is not what this version writes (a
    forged or foreign file): the snapshot is rebuilt, the answer unchanged."""
    reference = _reference(KnowledgeBase.load())
    path = _cache_file()
    raw = path.read_bytes()
    header, start = snapshot.read_header(raw)
    payload = raw[start:]
    paths, core = marshal.loads(payload[:header["core"]])
    core["nodes"] = ("map", core["nodes"][1], [("a", "b")] * len(core["nodes"][2]))
    header.pop("crc32")
    snapshot._write(str(path), header, marshal.dumps((paths, core)), payload[header["core"]:])
    before = builds["n"]
    assert _reference(KnowledgeBase.load()) == reference
    assert builds["n"] == before + 1


def test_a_cache_truncated_under_a_loaded_snapshot_is_damage_not_a_crash(data_root, builds, monkeypatch):
    """The shards are read from the open file when first needed (``pread``), never mapped: a
    cache file cut short in place while a snapshot is in use gives short reads, which are
    damage, so the snapshot rebuilds and every entry is still right (a memory map would
    have killed the process with SIGBUS).

    The copied files' fingerprints are trusted at once (``RACY_NS`` 0): else a load more than
    2 s after the copy rewrites the cache's header (a new file, by rename) while its snapshot
    reads the old one, and the truncation would miss it (seen on a loaded machine)."""
    monkeypatch.setattr(snapshot, "RACY_NS", 0)
    fresh = materialize(KnowledgeBase.load(use_cache=False).snap)
    KnowledgeBase.load()  # writes the cache
    snap = KnowledgeBase.load().snap  # lazy views over the cache file
    path = _cache_file()
    os.truncate(path, path.stat().st_size // 3)
    before = builds["n"]
    assert {k: v for k, v in materialize(snap).items() if k != "format"} == \
        {k: v for k, v in fresh.items() if k != "format"}
    assert builds["n"] == before + 1


def test_a_running_shell_outlives_its_cache_file_being_truncated(tmp_path):
    """What the issue saw: ``recipekg shell`` reading a pipe, its cache file truncated in place
    between two statements. The second statement is answered; the process is not killed."""
    env = dict(os.environ, RECIPEKG_CACHE_DIR=str(tmp_path / "cache"), PYTHONUNBUFFERED="1")
    if Path(recipekg.__file__).resolve().is_relative_to((REPO / "src").resolve()):
        env["PYTHONPATH"] = str(REPO / "src")
    subprocess.run([sys.executable, "-m", "recipekg", "query", TABULAR], env=env, check=True,
                   capture_output=True, timeout=120)
    proc = subprocess.Popen([sys.executable, "-m", "recipekg", "shell", "--format", "json"], env=env,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    proc.stdin.write("recommend fix where symptom = loss-spike;\n")
    proc.stdin.flush()
    first = proc.stdout.readline()
    for cache in (tmp_path / "cache").glob("snapshot-*.bin"):
        os.truncate(cache, 4096)
    out, err = proc.communicate("plan where params = 7B and hardware = h100 and gpus = 8;\n"
                                "explain vit where data = images and samples = 3000;\n", timeout=120)
    assert proc.returncode == 0, (proc.returncode, err[-2000:])
    assert first.strip() == "{" and '"statement": "plan"' in out and '"statement": "explain"' in out
