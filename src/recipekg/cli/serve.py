"""``recipekg serve``: the local, read-only web page (:mod:`recipekg.web`).

    $ recipekg serve                       # http://127.0.0.1:8000/
"""

from __future__ import annotations

import click

from recipekg.cli.common import kb_option, load_kb, user_errors
from recipekg.errors import UsageError


@click.command()
@click.option("--host", default="127.0.0.1", show_default=True, help="Address to listen on (local only by default).")
@click.option("--port", default=8000, show_default=True, type=click.IntRange(0, 65535), help="Port (0: any free port).")
@kb_option
@user_errors
def serve(host, port, extensions):
    """A local, read-only web page: query box, reasons, papers and backlinks, BibTeX to copy."""
    import socket

    from werkzeug.serving import WSGIRequestHandler, get_sockaddr, make_server, select_address_family

    from recipekg.web.app import LOOPBACK_HOSTS, create_app

    app = create_app(load_kb(extensions), trusted_hosts=LOOPBACK_HOSTS if host in LOOPBACK_HOSTS else None)
    family = select_address_family(host, port)
    sock = socket.socket(family, socket.SOCK_STREAM)
    try:  # bind here, so that a busy port is our error (exit 2), not werkzeug's exit 1
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(get_sockaddr(host, port, family))
        sock.listen(128)
        handler = type("Handler", (WSGIRequestHandler,), {"version_string": lambda self: "recipekg"})
        server = make_server(host, port, app, threaded=True, fd=sock.fileno(), request_handler=handler)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
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
