// Package gateway limits request rates.
package gateway

import (
	"sync"
	"time"
)

// RateLimitFilter allows at most Limit calls per window.
type RateLimitFilter struct {
	mu    sync.Mutex
	Limit int
	calls []time.Time
}

// Allow reports whether a call at now may pass.
func (f *RateLimitFilter) Allow(now time.Time) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.calls) < f.Limit
}

var defaultLimit = 10

func NewFilter() *RateLimitFilter {
	return &RateLimitFilter{Limit: defaultLimit}
}
