"""HTTP for SPARQL endpoints, with ``urllib`` only: one request with clear errors, and the
credentials a protected server asks for (Basic, or RFC 7616 Digest).

    >>> check_url("ftp://example.org/sparql")
    Traceback (most recent call last):
    ...
    recipekg.errors.UsageError: not an http(s) endpoint URL: 'ftp://example.org/sparql'
    expected: http://host:port/sparql
"""

from __future__ import annotations

import base64
import hashlib
import re
import secrets
import socket
import urllib.error
import urllib.parse
import urllib.request

from recipekg.errors import EngineError, UsageError

DEFAULT_TIMEOUT = 60.0


def check_url(url: str) -> str:
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise UsageError(f"not an http(s) endpoint URL: {url!r}",
                            expected=["http://host:port/sparql"])
    return url


def http_request(url: str, body: bytes | None, *, content_type: str | None, accept: str | None = None,
                 timeout: float = DEFAULT_TIMEOUT, user: str | None = None, password: str | None = None,
                 method: str = "POST") -> bytes:
    """One HTTP request with clear errors. With ``user``, the credentials go with the request
    itself (Digest or Basic, as a HEAD probe's challenge asks): a server that answers 401
    before reading a large body would otherwise break the pipe (Virtuoso does)."""
    check_url(url)
    headers = {"User-Agent": "recipekg"}
    if content_type:
        headers["Content-Type"] = content_type
    if accept:
        headers["Accept"] = accept
    request = urllib.request.Request(url, data=body, headers=headers, method=method)
    if user is not None:  # unredirected: never sent on to another URL
        request.add_unredirected_header("Authorization",
                                        _authorization(url, method, user, password or "", timeout))
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.read()
    except urllib.error.HTTPError as exc:
        detail = exc.read()[:500].decode("utf-8", "replace").strip()
        hint = " (check --user/--password)" if exc.code in (401, 403) else ""
        raise EngineError(f"{url} answered HTTP {exc.code} {exc.reason}{hint}"
                          + (f": {_one_line(detail)}" if detail else "")) from None
    except (socket.timeout, TimeoutError):
        raise EngineError(f"no answer from {url} within {timeout:g} s") from None
    except urllib.error.URLError as exc:
        reason = exc.reason
        if isinstance(reason, (socket.timeout, TimeoutError)):
            raise EngineError(f"no answer from {url} within {timeout:g} s") from None
        raise EngineError(f"cannot reach {url}: {reason}") from None
    except (OSError, ValueError) as exc:
        raise EngineError(f"cannot reach {url}: {exc}") from None


_DIGESTS = {"MD5": hashlib.md5, "MD5-SESS": hashlib.md5, "SHA": hashlib.sha1,
            "SHA-256": hashlib.sha256, "SHA-256-SESS": hashlib.sha256}


def _authorization(url: str, method: str, user: str, password: str, timeout: float) -> str:
    """The Authorization header for ``method url``: Digest when a HEAD probe is challenged
    with Digest, else Basic."""
    challenges: list[str] = []
    probe = urllib.request.Request(url, method="HEAD", headers={"User-Agent": "recipekg"})
    try:
        with urllib.request.urlopen(probe, timeout=timeout):
            pass
    except urllib.error.HTTPError as exc:
        if exc.code == 401:
            challenges = exc.headers.get_all("WWW-Authenticate") or []
    except (urllib.error.URLError, OSError, ValueError) as exc:
        raise EngineError(f"cannot reach {url}: {getattr(exc, 'reason', exc)}") from None
    for challenge in challenges:
        scheme, _, rest = challenge.strip().partition(" ")
        if scheme.lower() == "digest":
            params = urllib.request.parse_keqv_list(urllib.request.parse_http_list(rest))
            return _digest(url, method, user, password, params)
    token = base64.b64encode(f"{user}:{password}".encode("utf-8")).decode("ascii")
    return f"Basic {token}"


def _digest(url: str, method: str, user: str, password: str, params: dict) -> str:
    """RFC 7616 Digest response (qop=auth or none; MD5, SHA, SHA-256 and their -sess forms)."""
    algorithm = params.get("algorithm", "MD5").upper()
    if algorithm not in _DIGESTS:
        raise EngineError(f"{url} asks for Digest {algorithm}, which recipekg does not speak")
    h = lambda text: _DIGESTS[algorithm](text.encode("utf-8")).hexdigest()  # noqa: E731
    parts = urllib.parse.urlsplit(url)
    uri = parts.path or "/"
    if parts.query:
        uri += "?" + parts.query
    realm, nonce = params.get("realm", ""), params.get("nonce", "")
    cnonce, nc = secrets.token_hex(8), "00000001"
    ha1 = h(f"{user}:{realm}:{password}")
    if algorithm.endswith("-SESS"):
        ha1 = h(f"{ha1}:{nonce}:{cnonce}")
    ha2 = h(f"{method}:{uri}")
    qops = [q.strip() for q in params.get("qop", "").split(",") if q.strip()]
    fields = {"username": user, "realm": realm, "nonce": nonce, "uri": uri}
    if "auth" in qops:
        fields["response"] = h(f"{ha1}:{nonce}:{nc}:{cnonce}:auth:{ha2}")
    else:
        fields["response"] = h(f"{ha1}:{nonce}:{ha2}")
    if "opaque" in params:
        fields["opaque"] = params["opaque"]
    quoted = ", ".join(f'{k}="{v.replace(chr(92), chr(92) * 2).replace(chr(34), chr(92) + chr(34))}"'
                       for k, v in fields.items())
    extra = f", qop=auth, nc={nc}, cnonce=\"{cnonce}\"" if "auth" in qops else ""
    return f"Digest {quoted}, algorithm={params.get('algorithm', 'MD5')}{extra}"


def _one_line(text: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", text)).strip()[:300]
