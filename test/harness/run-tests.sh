#!/usr/bin/env bash
# `npm test` (its pretest has installed the system parts and built dist/). Without arguments it runs the
# two jest projects of jest.config.js at the same time: `servers` (contract/integration and end-to-end) in
# band, because its suites share the servers of global setup and fixed Redis databases, and `unit` (the
# specs that need no server) on two workers, in the CPU the `servers` suites leave idle while they wait on
# their processes.
# Each project writes its own `N passed, N failed`; their sum is the closing line, also written to
# .test-servers/summary.txt (CI reads it). Exits non-zero when either project failed or did not report.
# With arguments (paths, patterns, jest options) it is one in-band jest run over both projects (never the
# `dev` project's developer commands, which start their own deployments: they have npm scripts of their own).
set -uo pipefail
cd "$(dirname "$0")/../.."
jest=(node --experimental-vm-modules node_modules/jest/bin/jest.js)
if [ $# -gt 0 ]; then exec "${jest[@]}" --runInBand "$@" --selectProjects unit servers; fi

dir=.test-servers
mkdir -p "$dir"
rm -f "$dir/summary.txt" "$dir/summary-unit.txt" "$dir/summary-servers.txt"

# The unit project's output is kept apart and printed whole once both are done (two live jest outputs
# would interleave line by line). It runs niced: the servers suites hold leases and lock timers that a
# starved process can miss, the unit specs only have to finish. So on a machine busy with other work a unit
# spec gets what is left of the CPU: its timeout (a hang guard, not a stopwatch) is minutes, not jest.config's
# 30 s (the command line's, because jest-circus reads only the run's global timeout, never a project's).
GLEANER_TEST_SUMMARY="$dir/summary-unit.txt" nice -n 10 "${jest[@]}" --selectProjects unit --maxWorkers=2 --testTimeout=180000 >"$dir/unit.log" 2>&1 &
unit_pid=$!
trap '[ -n "$unit_pid" ] && kill "$unit_pid" 2>/dev/null' EXIT
GLEANER_TEST_SUMMARY="$dir/summary-servers.txt" "${jest[@]}" --selectProjects servers --runInBand
servers_status=$?
wait "$unit_pid"
unit_status=$?
unit_pid=

echo
echo "=== unit project (the specs that need no server; 2 workers, niced, beside the servers project above)"
cat "$dir/unit.log"

passed=0
failed=0
for project in unit servers; do
  line=$(cat "$dir/summary-$project.txt" 2>/dev/null || true)
  if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "$project: $line"
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
  else
    # No count at all (jest or global setup died): one more failure, never a silent gap.
    echo "$project: no count (jest did not finish its run): counted as 1 failed"
    failed=$((failed + 1))
  fi
done
if [ "$unit_status" -ne 0 ] || [ "$servers_status" -ne 0 ]; then
  echo "jest exit status: unit $unit_status, servers $servers_status"
  [ "$failed" -gt 0 ] || failed=1
fi

line="$passed passed, $failed failed"
echo
echo "$line"
echo "$line" >"$dir/summary.txt"
[ "$failed" -eq 0 ]
