"""The web page's answer cache: a bounded, thread-safe LRU of pages, which the app keys by the
pages' root (their links are under it) and the query text.

An answer page is a pure function of the query text, the root and the knowledge base, which a
running app never changes, so the page of a query asked before is served from here instead of
parsing, reasoning and rendering again. Only the CSP nonce differs between two responses: pages are
stored with :attr:`PageCache.placeholder` where the nonce goes, and :meth:`PageCache.page`
puts each response's own nonce there. The placeholder is random per cache, so no query text
can forge it.

The memory is bounded twice: at most :data:`MAX_ENTRIES` pages and at most :data:`MAX_CHARS`
characters of pages in all (bytes, for the pages an answer worker wrote) (an answer page is 15
to 95 KB, the word list not among them: 330 pages or more fit; a page larger than the whole
budget is not kept). The least recently used pages go first.

    >>> cache = PageCache(max_entries=2)
    >>> cache.page("q1", "n1", lambda ph: f"<script nonce='{ph}'>")
    "<script nonce='n1'>"
    >>> cache.page("q1", "n2", lambda ph: 1 / 0)  # served from the cache: not rendered again
    "<script nonce='n2'>"
    >>> for q in ("q2", "q3"):
    ...     _ = cache.page(q, "n", lambda ph: q)
    >>> len(cache), "q1" in cache, cache.hits, cache.misses
    (2, False, 1, 3)
"""

from __future__ import annotations

import secrets
import threading
from collections import OrderedDict

MAX_ENTRIES = 512
MAX_CHARS = 32_000_000


class PageCache:
    """Pages by query text, least recently used evicted first; safe across threads."""

    def __init__(self, max_entries: int = MAX_ENTRIES, max_chars: int = MAX_CHARS) -> None:
        self.max_entries, self.max_chars = max_entries, max_chars
        self.placeholder = "rkg-nonce-" + secrets.token_hex(16)
        self._placeholder_bytes = self.placeholder.encode()
        self._pages: OrderedDict[object, list] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._pages)

    def __contains__(self, key) -> bool:
        return key in self._pages

    def keys(self) -> list:
        """The keys held, least recently used first."""
        with self._lock:
            return list(self._pages)

    @property
    def chars(self) -> int:
        """The characters of the pages held."""
        return self._chars

    def page(self, key, nonce: str, render, keep=None) -> str | bytes:
        """The page for ``key`` with ``nonce`` in place; ``render(placeholder)`` makes it on a
        miss, stored unless ``keep()`` says not (a query stopped at the time limit: another try
        may find a worker free). Two threads missing the same key at once may both render it
        (same text). A page rendered as UTF-8 bytes (an answer worker's) is kept and served as
        bytes, never decoded and encoded again.

        >>> cache = PageCache()
        >>> cache.page("q", "n1", lambda ph: f"<p nonce='{ph}'>é</p>".encode())
        b"<p nonce='n1'>\\xc3\\xa9</p>"
        >>> cache.page("q", "n2", lambda ph: 1 / 0)
        b"<p nonce='n2'>\\xc3\\xa9</p>"
        """
        with self._lock:
            parts = self._pages.get(key)
            if parts is not None:
                self._pages.move_to_end(key)
                self.hits += 1
        if parts is None:
            page = render(self.placeholder)
            parts = page.split(self.placeholder if isinstance(page, str) else self._placeholder_bytes)
            if keep is None or keep():
                self._store(key, parts)
        return nonce.join(parts) if isinstance(parts[0], str) else nonce.encode().join(parts)

    def _store(self, key, parts: list) -> None:
        size = sum(map(len, parts))
        with self._lock:
            self.misses += 1
            if size > self.max_chars or self.max_entries < 1:
                return
            old = self._pages.pop(key, None)
            if old is not None:
                self._chars -= sum(map(len, old))
            self._pages[key] = parts
            self._chars += size
            while len(self._pages) > self.max_entries or self._chars > self.max_chars:
                _, evicted = self._pages.popitem(last=False)
                self._chars -= sum(map(len, evicted))
