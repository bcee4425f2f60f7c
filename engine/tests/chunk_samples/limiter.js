import { monotonic } from './clock.js';

/** Allows at most limit calls per window. */
export class RateLimitFilter {
  constructor(limit) {
    this.limit = limit;
    this.calls = [];
  }

  allow(now = monotonic()) {
    this.calls = this.calls.filter((t) => now - t < 1000);
    return this.calls.length < this.limit;
  }
}

export const makeFilter = (limit = 10) => new RateLimitFilter(limit);

function describe(filter) {
  return `limit ${filter.limit}`;
}

console.log(describe(makeFilter()));
