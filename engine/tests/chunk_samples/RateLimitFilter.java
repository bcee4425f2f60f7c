package gateway;

import java.util.ArrayDeque;
import java.util.Deque;

/** Allows at most limit calls per window. */
public class RateLimitFilter {
    private final int limit;
    private final Deque<Long> calls = new ArrayDeque<>();

    public RateLimitFilter(int limit) {
        this.limit = limit;
    }

    /** Whether a call at now may pass. */
    public boolean allow(long now) {
        while (!calls.isEmpty() && now - calls.peekFirst() > 1000) {
            calls.pollFirst();
        }
        return calls.size() < limit && calls.add(now);
    }

    private static final String NAME = "rate";

    interface Clock {
        long now();
    }
}
