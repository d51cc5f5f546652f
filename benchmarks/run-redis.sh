#!/usr/bin/env bash
# Runs the Redis benchmarks and writes their section of docs/benchmarks.md (the rest of the file
# is benchmarks/run.sh's; this replaces only what lies between the redis markers, or appends it).
#
#   benchmarks/run-redis.sh          # everything: the Redis section and its pause-on-throttle section
#   benchmarks/run-redis.sh pause    # only what pause-on-throttle costs (RedisPauseCost), its section alone
#
# Each benchmark starts its own server on a free port with the tests' RedisServer: the PATH's
# redis-server, else the one the embedded-redis dependency ships. JMH settings as for run.sh:
# FORKS (1), WARMUP_ITERATIONS (2), WARMUP_TIME (2s), ITERATIONS (3), TIME (2s); DECISIONS (20000) for the
# command count (server time and memory per decision of ours, Bucket4j, Spring Cloud Gateway and the
# ceiling); INSTRUCTION_DECISIONS (2000) for the server's instructions per decision, counted under
# Valgrind's callgrind when valgrind and redis-server are on the PATH (Debian: apt-get install
# valgrind redis-server), else left out of the report. About six minutes, and the pause-on-throttle
# section (RedisPauseCost: disabled against enabled for each decide script, admitted and rejected)
# about 20 more: PAUSE_DECISIONS (20000) measured after as many to warm up, PAUSE_ROUNDS (4, each
# interleaving disabled and enabled), PAUSE_INSTRUCTION_DECISIONS (2000) and
# PAUSE_INSTRUCTION_ROUNDS (2) under valgrind.
set -euo pipefail

cd "$(dirname "$0")/.."
start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "unknown")

FORKS=${FORKS:-1}
WARMUP_ITERATIONS=${WARMUP_ITERATIONS:-2}
WARMUP_TIME=${WARMUP_TIME:-2s}
ITERATIONS=${ITERATIONS:-3}
TIME=${TIME:-2s}
DECISIONS=${DECISIONS:-20000}
INSTRUCTION_DECISIONS=${INSTRUCTION_DECISIONS:-2000}
PAUSE_DECISIONS=${PAUSE_DECISIONS:-20000}
PAUSE_ROUNDS=${PAUSE_ROUNDS:-4}
PAUSE_INSTRUCTION_DECISIONS=${PAUSE_INSTRUCTION_DECISIONS:-2000}
PAUSE_INSTRUCTION_ROUNDS=${PAUSE_INSTRUCTION_ROUNDS:-2}

./mvnw -B -q -pl benchmarks -am package -DskipTests

classpath="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
results=benchmarks/target/results
mkdir -p "$results"
redis_version() {
	if command -v redis-server >/dev/null; then redis-server --version | sed -E 's/.*v=([^ ]+).*/\1/'; else echo "of embedded-redis"; fi
}
valgrind_there() {
	command -v valgrind >/dev/null && command -v callgrind_control >/dev/null && command -v redis-server >/dev/null
}

# What pause-on-throttle costs a decision while no pause is in force: its own section.
pause_cost() {
	local counted=0
	if valgrind_there; then
		counted=$PAUSE_INSTRUCTION_DECISIONS
	else
		echo "valgrind or redis-server is not on the PATH: the server's instructions are not counted" >&2
	fi
	echo "Measuring pause-on-throttle's cost per decision (RedisPauseCost)"
	rm -f "$results"/redis-pause.csv "$results"/redis-pause-instructions.csv
	java -cp "$classpath" dev.resilience.benchmarks.RedisPauseCost decisions="$PAUSE_DECISIONS" rounds="$PAUSE_ROUNDS" \
		instructions="$counted" instruction-rounds="$PAUSE_INSTRUCTION_ROUNDS" results="$results" out=docs/benchmarks.md \
		settings="redis-server $(redis_version) on $(nproc) cores; run as \`PAUSE_DECISIONS=$PAUSE_DECISIONS PAUSE_ROUNDS=$PAUSE_ROUNDS PAUSE_INSTRUCTION_DECISIONS=$PAUSE_INSTRUCTION_DECISIONS PAUSE_INSTRUCTION_ROUNDS=$PAUSE_INSTRUCTION_ROUNDS benchmarks/run-redis.sh${1:+ $1}\`"
}

if [[ "${1:-}" == "pause" ]]; then
	pause_cost pause
	echo "Done in $(( $(date +%s) - start )) s"
	exit 0
fi

rm -f "$results"/redis-jmh.csv "$results"/redis-commands.csv "$results"/redis-instructions.csv

echo "Counting Redis commands, server time and memory per decision"
java -cp "$classpath" dev.resilience.benchmarks.RedisCommandCount "$DECISIONS" "$results/redis-commands.csv"

if valgrind_there; then
	echo "Counting the server's instructions per decision under valgrind"
	java -cp "$classpath" dev.resilience.benchmarks.RedisInstructionCount "$INSTRUCTION_DECISIONS" \
		"$results/redis-instructions.csv"
else
	echo "valgrind or redis-server is not on the PATH: the server's instructions are not counted" >&2
fi

echo "Running JMH (log: $results/redis-jmh.log)"
# The ceiling only where ours is held to it (one hot key): two runs, one CSV each.
jmh() {
	java -cp "$classpath" org.openjdk.jmh.Main RedisBenchmark \
		-f "$FORKS" -wi "$WARMUP_ITERATIONS" -w "$WARMUP_TIME" -i "$ITERATIONS" -r "$TIME" "$@" \
		| tee -a "$results/redis-jmh.log" | grep -E '^(# Run progress|Benchmark |RedisBenchmark\.)' || true
}
: > "$results/redis-jmh.log"
rm -f "$results"/redis-jmh-ceiling.csv
jmh -p impl=ceiling -p keys=1 -rf csv -rff "$results/redis-jmh-ceiling.csv"
jmh -p impl=ours,bucket4j -rf csv -rff "$results/redis-jmh.csv"
if [[ ! -s "$results/redis-jmh.csv" || ! -s "$results/redis-jmh-ceiling.csv" ]]; then
	echo "JMH wrote no results; see $results/redis-jmh.log" >&2
	exit 1
fi

java -cp "$classpath" dev.resilience.benchmarks.RedisBenchmarkReport \
	jmh="$results/redis-jmh.csv,$results/redis-jmh-ceiling.csv" commands="$results/redis-commands.csv" \
	instructions="$results/redis-instructions.csv" out=docs/benchmarks.md \
	settings="JMH 1.37, throughput, $FORKS fork, warmup $WARMUP_ITERATIONS × $WARMUP_TIME, measurement $ITERATIONS × $TIME; redis-server $(redis_version); whole run $(( $(date +%s) - start )) s; load average (1, 5, 15 min) before $load_before, after $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo unknown) on $(nproc) cores"
pause_cost
echo "Done in $(( $(date +%s) - start )) s"
