"""A private Virtuoso Open Source server for the SPARQL tests (one per test session).

``virtuoso_endpoint`` starts ``virtuoso-t`` from Debian's ``virtuoso-opensource`` package
with its own ``virtuoso.ini`` in a temporary directory (database files there, SQL and HTTP
ports on free 127.0.0.1 ports), waits until ``/sparql`` answers, loads ``recipekg export``
into a named graph through ``recipekg load`` (SPARQL UPDATE on ``/sparql-auth``, digest auth
as ``dba``/``dba``, the password of a fresh database) and yields the query endpoint URL.

Without the binary the tests skip, except under ``CI=true``, where they fail: CI installs
the package (``tools/test.sh``) and must run them.

Also usable by hand::

    python tests/sparql/virtuoso_server.py /tmp/virt     # start, load, print the endpoint, wait
"""

from __future__ import annotations

import configparser
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

GRAPH = "https://w3id.org/recipekg/graph/test"
BINARY = "virtuoso-t"
DEFAULT_INIS = "/etc/virtuoso-opensource-*/virtuoso.ini"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _ini_text(workdir: Path, sql_port: int, http_port: int) -> str:
    """The Debian default virtuoso.ini with paths and ports rewritten for a private instance."""
    defaults = sorted(glob.glob(DEFAULT_INIS))
    ini = configparser.RawConfigParser(strict=False, inline_comment_prefixes=(";",),
                                       comment_prefixes=(";", "#"))
    ini.optionxform = str  # Virtuoso's keys are case-sensitive in spirit; keep them as written
    if defaults:
        ini.read(defaults[-1])
    for section in ("Database", "TempDatabase", "Parameters", "HTTPServer", "SPARQL"):
        if not ini.has_section(section):
            ini.add_section(section)
    db = workdir / "db"
    db.mkdir(parents=True, exist_ok=True)
    ini["Database"].update({
        "DatabaseFile": str(db / "virtuoso.db"), "ErrorLogFile": str(db / "virtuoso.log"),
        "LockFile": str(db / "virtuoso.lck"), "TransactionFile": str(db / "virtuoso.trx"),
        "xa_persistent_file": str(db / "virtuoso.pxa"), "Striping": "0"})
    ini["TempDatabase"].update({
        "DatabaseFile": str(db / "virtuoso-temp.db"), "TransactionFile": str(db / "virtuoso-temp.trx"),
        "Striping": "0"})
    ini["Parameters"].update({
        "ServerPort": f"127.0.0.1:{sql_port}", "DisableUnixSocket": "1",
        "DirsAllowed": f"., {workdir}", "NumberOfBuffers": "10000", "MaxDirtyBuffers": "6000",
        "MaxQueryMem": "256M", "CheckpointInterval": "0", "ThreadsPerQuery": "2"})
    vsp = workdir / "vsp"
    vsp.mkdir(exist_ok=True)
    ini["HTTPServer"].update({"ServerPort": f"127.0.0.1:{http_port}", "ServerRoot": str(vsp)})
    ini["SPARQL"].update({"ResultSetMaxRows": "100000", "MaxQueryExecutionTime": "120"})
    if ini.has_section("Plugins"):
        ini.remove_section("Plugins")  # wiki plugins: nothing the tests need
    lines = []
    for section in ini.sections():
        lines.append(f"[{section}]")
        lines.extend(f"{k} = {v}" for k, v in ini[section].items())
        lines.append("")
    return "\n".join(lines)


class Virtuoso:
    """One private ``virtuoso-t`` process."""

    def __init__(self, workdir: Path):
        self.workdir = Path(workdir)
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.sql_port, self.http_port = _free_port(), _free_port()
        while self.http_port == self.sql_port:
            self.http_port = _free_port()
        self.ini = self.workdir / "virtuoso.ini"
        self.ini.write_text(_ini_text(self.workdir, self.sql_port, self.http_port))
        self.process: subprocess.Popen | None = None

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql"

    @property
    def update_endpoint(self) -> str:
        return f"http://127.0.0.1:{self.http_port}/sparql-auth"

    def start(self, timeout: float = 60.0) -> None:
        binary = shutil.which(BINARY)
        if binary is None:
            raise FileNotFoundError(BINARY)
        self.log = open(self.workdir / "stdout.log", "wb")
        self.process = subprocess.Popen([binary, "-c", str(self.ini), "+foreground"],
                                        cwd=self.workdir, stdout=self.log, stderr=subprocess.STDOUT,
                                        stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"virtuoso-t exited with {self.process.returncode}:\n{self.tail()}")
            if self._answers():
                return
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"virtuoso-t did not answer on {self.endpoint} within {timeout:.0f} s:\n{self.tail()}")

    def _answers(self) -> bool:
        # (a form POST: Virtuoso 7.2 never answers an application/sparql-query body)
        request = urllib.request.Request(self.endpoint, data=b"query=ASK+%7B%7D", method="POST", headers={
            "Content-Type": "application/x-www-form-urlencoded", "Accept": "application/sparql-results+json"})
        try:
            with urllib.request.urlopen(request, timeout=2) as response:
                return response.status == 200
        except (urllib.error.URLError, OSError, ValueError):
            return False

    def tail(self, lines: int = 30) -> str:
        out = []
        for name in ("stdout.log", "db/virtuoso.log"):
            path = self.workdir / name
            if path.is_file():
                out += path.read_text(errors="replace").splitlines()[-lines:]
        return "\n".join(out)

    def stop(self) -> None:
        if self.process is None or self.process.poll() is not None:
            return
        os.killpg(self.process.pid, signal.SIGTERM)  # our own session: virtuoso-t only
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)
        self.log.close()


def load_export(server: Virtuoso) -> None:
    """Put ``recipekg export`` into the server's graph :data:`GRAPH` with ``recipekg load``."""
    from recipekg.sparql.load import load_endpoint
    from recipekg.knowledge.resources import bundled_files

    load_endpoint(server.update_endpoint, bundled_files(), graph=GRAPH, user="dba",
                  password="dba", replace=True)


def missing_binary(reason: str) -> None:
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason}: CI must run the Virtuoso tests (tools/test.sh installs "
                    f"virtuoso-opensource)", pytrace=False)
    pytest.skip(reason)


@pytest.fixture(scope="session")
def virtuoso_endpoint(tmp_path_factory):
    """The query URL of a private, loaded Virtuoso server (started once per session)."""
    if shutil.which(BINARY) is None:
        missing_binary(f"{BINARY} not found (apt-get install virtuoso-opensource)")
    server = Virtuoso(tmp_path_factory.mktemp("virtuoso"))
    server.start()
    try:
        load_export(server)
        yield server.endpoint
    finally:
        server.stop()


if __name__ == "__main__":
    server = Virtuoso(Path(sys.argv[1] if len(sys.argv) > 1 else "/tmp/recipekg-virtuoso"))
    started = time.monotonic()
    server.start()
    print(f"started in {time.monotonic() - started:.1f} s", flush=True)
    if "--no-load" not in sys.argv:
        started = time.monotonic()
        load_export(server)
        print(f"loaded in {time.monotonic() - started:.1f} s", flush=True)
    print(server.endpoint, server.update_endpoint, server.sql_port, flush=True)
    try:
        signal.pause()
    finally:
        server.stop()
