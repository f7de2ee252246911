"""A small least-recently-used map: the recent tables and seeds a process keeps."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Generic, TypeVar

T = TypeVar("T")


class LRU(Generic[T]):
    """A small thread-safe least-recently-used map (gunicorn threads share one)."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._items: OrderedDict[str, T] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: str) -> T | None:
        with self._lock:
            item = self._items.get(key)
            if item is not None:
                self._items.move_to_end(key)
            return item

    def put(self, key: str, item: T) -> None:
        with self._lock:
            self._items[key] = item
            self._items.move_to_end(key)
            while len(self._items) > self._size:
                self._items.popitem(last=False)
