#!/usr/bin/env bats
# man/tg-*.1 match the tools: every long flag that --help lists is documented.
load helpers

check_man() { # tool
  local page="$ROOT/man/$1.1"
  [ -f "$page" ]
  local text flags
  text=$(sed 's/\\-/-/g' "$page")
  run_split "$1" --help
  [ "$status" -eq 0 ]
  flags=$(grep -oE -- '--[a-z][a-z-]+' <<<"$out" | sort -u)
  [ -n "$flags" ]
  for f in $flags; do expect_contains "$text" "$f"; done
}

@test "man page tg-trace.1 documents every flag of tg-trace --help" { check_man tg-trace; }
@test "man page tg-schedule.1 documents every flag of tg-schedule --help" { check_man tg-schedule; }
@test "man page tg-codegen.1 documents every flag of tg-codegen --help" { check_man tg-codegen; }
@test "man page tg-run.1 documents every flag of tg-run --help" { check_man tg-run; }
@test "man page tg-grad.1 documents every flag of tg-grad --help" { check_man tg-grad; }

@test "man pages render without groff warnings" {
  command -v groff >/dev/null || skip "needs groff"
  for page in "$ROOT"/man/*.1; do
    run_split groff -man -Tutf8 -ww "$page"
    [ "$status" -eq 0 ]
    [ -z "$err" ]
  done
}
