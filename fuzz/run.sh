#!/usr/bin/env bash
# Runs every fuzz target (or those named) for a number of executions each and prints a table:
# executions, seconds, coverage (libFuzzer's `cov` edges and `ft` features), corpus size, and
# crashes. `bash fuzz/run.sh [RUNS] [TARGET ...]`, RUNS defaulting to 10,000,000.
#
# Installs what it needs first (quiet when present): the pinned nightly (cargo-fuzz builds with
# sanitizer coverage, which stable has not) and cargo-fuzz. Built without AddressSanitizer
# (`--sanitizer none`): the code under test is safe Rust, and ASan cost the executions a run
# needs; overflow checks and debug assertions stay on. Each target starts from its committed
# seeds (fuzz/corpus/<target>/, replayed by the stable test command: fuzz/bodies/tests/corpus.rs)
# and what earlier runs kept (fuzz/work/<target>/, not committed: megabytes), where new inputs
# land and are minimised after the run (`cargo fuzz cmin`). A crash
# leaves its input in fuzz/artifacts/<target>/ and makes the script exit 1 after the table:
# copy it into the corpus as `crash-<what>` once fixed.
set -euo pipefail
cd "$(dirname "$0")"
export PATH="$HOME/.cargo/bin:$PATH"

NIGHTLY=nightly-2026-05-20
CARGO_FUZZ_VERSION=0.13.2

runs="${1:-10000000}"
shift || true
mapfile -t all < <(ls fuzz_targets | sed 's/\.rs$//')
targets=("$@")
[ "${#targets[@]}" -gt 0 ] || targets=("${all[@]}")

rustup toolchain list | grep -q "^$NIGHTLY" ||
  rustup toolchain install "$NIGHTLY" --profile minimal >/dev/null
cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION" ||
  cargo install --quiet --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"

# The workspace's clippy wrapper (scripts/test.sh) must not reach the nightly build.
unset RUSTC_WORKSPACE_WRAPPER CLIPPY_ARGS
cargo "+$NIGHTLY" fuzz build --release --debug-assertions --sanitizer none >/dev/null 2>&1 ||
  cargo "+$NIGHTLY" fuzz build --release --debug-assertions --sanitizer none

rows=()
failed=0
for target in "${targets[@]}"; do
  log="artifacts/$target.log"
  mkdir -p "artifacts/$target"
  started=$SECONDS
  crashes_before=$(find "artifacts/$target" -type f | wc -l)
  status=0
  mkdir -p "work/$target"
  cargo "+$NIGHTLY" fuzz run --release --debug-assertions --sanitizer none "$target" \
    "work/$target" "corpus/$target" -- -runs="$runs" -timeout=10 \
    -dict=json.dict -print_final_stats=1 >"$log" 2>&1 || status=$?
  seconds=$((SECONDS - started))
  executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  last=$(grep -E '^#[0-9]+' "$log" | tail -1)
  cov=$(sed -n 's/.* cov: \([0-9]*\).*/\1/p' <<<"$last")
  ft=$(sed -n 's/.* ft: \([0-9]*\).*/\1/p' <<<"$last")
  crashes=$(($(find "artifacts/$target" -type f | wc -l) - crashes_before))
  if [ "$status" -ne 0 ]; then
    failed=1
    [ "$crashes" -gt 0 ] || crashes="exit $status"
  fi
  cargo "+$NIGHTLY" fuzz cmin --release --debug-assertions --sanitizer none "$target" \
    "work/$target" >/dev/null 2>&1 || true
  corpus=$(find "work/$target" -type f | wc -l)
  rows+=("$(printf '| %-15s | %12s | %6s | %5s | %6s | %6s | %s |' \
    "$target" "${executions:-?}" "$seconds" "${cov:-?}" "${ft:-?}" "$corpus" "$crashes")")
done

printf '| %-15s | %12s | %6s | %5s | %6s | %6s | %s |\n' \
  target executions seconds cov ft corpus crashes
printf '| --- | ---: | ---: | ---: | ---: | ---: | --- |\n'
printf '%s\n' "${rows[@]}"
[ "$failed" -eq 0 ] || {
  echo "fuzz/run.sh: a target crashed or failed; its log and input are under fuzz/artifacts/" >&2
  exit 1
}
