#!/usr/bin/env bash
# `npm test` (its pretest has installed the system parts and built dist/). Without arguments it runs the
# two jest projects of jest.config.js at the same time: `servers` (contract/integration and end-to-end) as
# GLEANER_TEST_SHARDS jest processes (2 unless set), each in band over its share of the suites with its own
# servers from global setup (its suites share those servers and fixed Redis databases, so inside a process
# they run one at a time; two processes never share a server); and `unit` (the specs that need no server) on
# two workers, in the CPU the `servers` suites leave idle while they wait on their processes. The shards are
# cut by the time each suite took in CI (test/harness/servers-sequencer.js), so they end together.
# Each jest process writes its own `N passed, N failed`; their sum is the closing line, also written to
# .test-servers/summary.txt (CI reads it). Exits non-zero when any process failed or did not report.
# With arguments (paths, patterns, jest options) it is one in-band jest run over both projects (never the
# `dev` project's developer commands, which start their own deployments: they have npm scripts of their own).
set -uo pipefail
cd "$(dirname "$0")/../.."
jest=(node --experimental-vm-modules node_modules/jest/bin/jest.js)
if [ $# -gt 0 ]; then exec "${jest[@]}" --runInBand "$@" --selectProjects unit servers; fi

shards=${GLEANER_TEST_SHARDS:-2}
if ! [[ "$shards" =~ ^[1-9]$ ]]; then
  echo "GLEANER_TEST_SHARDS must be a number from 1 to 9, not '$shards'" >&2
  exit 2
fi
dir=.test-servers
mkdir -p "$dir"
rm -f "$dir"/summary*.txt
# Built once here: each shard's global setup would otherwise build the MongoDB-wire server at the same time.
bash test/servers/mongo-wire/build.sh || exit 1

# The output of every process but the first shard is kept apart and printed whole once all are done (live
# jest outputs would interleave line by line). The unit project runs niced: the servers suites hold leases
# and lock timers that a starved process can miss, the unit specs only have to finish. So on a machine busy
# with other work a unit spec gets what is left of the CPU: its timeout (a hang guard, not a stopwatch) is
# minutes, not jest.config's 30 s (the command line's, because jest-circus reads only the run's global
# timeout, never a project's).
pids=()
GLEANER_TEST_SUMMARY="$dir/summary-unit.txt" nice -n 10 "${jest[@]}" --selectProjects unit --maxWorkers=2 --testTimeout=180000 >"$dir/unit.log" 2>&1 &
pids+=($!)
for ((shard = 2; shard <= shards; shard++)); do
  GLEANER_TEST_SUMMARY="$dir/summary-servers-$shard.txt" "${jest[@]}" --selectProjects servers --runInBand --shard="$shard/$shards" >"$dir/servers-$shard.log" 2>&1 &
  pids+=($!)
done
trap 'for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null; done' EXIT
GLEANER_TEST_SUMMARY="$dir/summary-servers-1.txt" "${jest[@]}" --selectProjects servers --runInBand --shard="1/$shards"
statuses=($?)
for pid in "${pids[@]}"; do
  wait "$pid"
  statuses+=($?)
done
pids=()

for ((shard = 2; shard <= shards; shard++)); do
  echo
  echo "=== servers project, shard $shard of $shards (beside shard 1 above)"
  cat "$dir/servers-$shard.log"
done
echo
echo "=== unit project (the specs that need no server; 2 workers, niced, beside the servers project above)"
cat "$dir/unit.log"

passed=0
failed=0
parts=(unit)
for ((shard = 1; shard <= shards; shard++)); do parts+=("servers-$shard"); done
for part in "${parts[@]}"; do
  line=$(cat "$dir/summary-$part.txt" 2>/dev/null || true)
  if [[ "$line" =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
    echo "$part: $line"
    passed=$((passed + BASH_REMATCH[1]))
    failed=$((failed + BASH_REMATCH[2]))
  else
    # No count at all (jest or global setup died): one more failure, never a silent gap.
    echo "$part: no count (jest did not finish its run): counted as 1 failed"
    failed=$((failed + 1))
  fi
done
for status in "${statuses[@]}"; do
  if [ "$status" -ne 0 ]; then
    echo "jest exit statuses: ${statuses[*]} (servers shard 1, unit, servers shards 2..$shards)"
    [ "$failed" -gt 0 ] || failed=1
    break
  fi
done

line="$passed passed, $failed failed"
echo
echo "$line"
echo "$line" >"$dir/summary.txt"
[ "$failed" -eq 0 ]
