"""What every response of the web app carries, and whom it answers: the Content-Security-Policy
with a nonce per response, the other security headers, and a Host header's name (the app answers
only the hosts it serves). Read by the Flask app's hooks (:mod:`recipekg.web.app`) and by the
answer pages served before them (:mod:`recipekg.web.front`).
"""

from __future__ import annotations

import secrets

CSP = ("default-src 'none'; script-src 'nonce-{nonce}'; style-src 'self'; img-src 'self'; connect-src 'self'; "
       "form-action 'self'; base-uri 'none'; frame-ancestors 'none'")


def new_nonce() -> str:
    """A response's CSP nonce: 18 random bytes, URL-safe base64."""
    return secrets.token_urlsafe(18)


def security_headers(nonce: str) -> list[tuple[str, str]]:
    """The headers every response carries: the Content-Security-Policy with ``nonce``, no
    sniffing, no referrer, no framing, and a Server header that names neither the server nor
    Python's version."""
    return [("Content-Security-Policy", CSP.format(nonce=nonce)), ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"), ("X-Frame-Options", "DENY"), ("Server", "recipekg")]


def host_name(host: str) -> str:
    """A Host header's name, without the port, lower case; IPv6 literals keep their brackets.

    >>> host_name("[::1]:8000"), host_name("LocalHost:80"), host_name("::1"), host_name("127.0.0.1")
    ('[::1]', 'localhost', '[::1]', '127.0.0.1')
    """
    host = host.strip().lower()
    if host.startswith("["):
        return host[:host.find("]") + 1] if "]" in host else host
    if host.count(":") > 1:
        return f"[{host}]"
    return host.partition(":")[0]
