#include <stdbool.h>
#include "limiter.h"

#define WINDOW_MS 1000

struct limiter {
    int limit;
    int count;
};

/* Whether a call may pass. */
bool limiter_allow(struct limiter *l) {
    if (l->count >= l->limit) {
        return false;
    }
    l->count++;
    return true;
}

static int default_limit = 10;

void limiter_reset(struct limiter *l) { l->count = 0; }
