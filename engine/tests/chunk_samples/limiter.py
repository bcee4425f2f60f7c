"""Rate limiting for the gateway."""
import time
from collections import deque


class RateLimitFilter:
    """Allows at most `limit` calls per `window` seconds."""

    default_limit = 10

    def __init__(self, limit, window):
        self.limit = limit
        self.window = window
        self.calls = deque()

    @property
    def remaining(self):
        return self.limit - len(self.calls)

    def allow(self, now=None):
        now = time.monotonic() if now is None else now
        while self.calls and now - self.calls[0] > self.window:
            self.calls.popleft()
        if len(self.calls) < self.limit:
            self.calls.append(now)
            return True
        return False


def make_filter(limit=10):
    return RateLimitFilter(limit, 1.0)


if __name__ == "__main__":
    print(make_filter().allow())
