#include <deque>

namespace gateway {

// Allows at most limit calls per window.
class RateLimitFilter {
 public:
  explicit RateLimitFilter(int limit) : limit_(limit) {}

  bool allow(long now) {
    while (!calls_.empty() && now - calls_.front() > 1000) calls_.pop_front();
    return static_cast<int>(calls_.size()) < limit_;
  }

 private:
  int limit_;
  std::deque<long> calls_;
};

int make_limit() { return 10; }

}  // namespace gateway
