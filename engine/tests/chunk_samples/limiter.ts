import { monotonic } from './clock';

export interface Clock {
  now(): number;
}

export class RateLimitFilter {
  private calls: number[] = [];

  constructor(private readonly limit: number) {}

  allow(now: number = monotonic()): boolean {
    this.calls = this.calls.filter((t) => now - t < 1000);
    return this.calls.length < this.limit;
  }
}

export type Limit = number;

export function makeFilter(limit: Limit = 10): RateLimitFilter {
  return new RateLimitFilter(limit);
}
