#!/usr/bin/env bash
# Runs the benchmarks (rate limiter, annotated calls blocking and asynchronous, pool, concurrency permits
# fixed and adaptive) and writes docs/benchmarks.md.
#
#   benchmarks/run.sh                    all JMH benchmarks, the heap measurement, the report
#   benchmarks/run.sh OneKeyBenchmark    only the JMH benchmarks matching these JMH arguments
#
# JMH settings come from the environment: FORKS (1), WARMUP_ITERATIONS (2), WARMUP_TIME (1s),
# ITERATIONS (3), TIME (1s); MEMORY_KEYS (200000) is the number of keys MemoryFootprint uses.
# Raw results are kept in benchmarks/target/results/.
set -euo pipefail

cd "$(dirname "$0")/.."
start=$(date +%s)
load_before=$(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo "")

FORKS=${FORKS:-1}
WARMUP_ITERATIONS=${WARMUP_ITERATIONS:-2}
WARMUP_TIME=${WARMUP_TIME:-1s}
ITERATIONS=${ITERATIONS:-3}
TIME=${TIME:-1s}
MEMORY_KEYS=${MEMORY_KEYS:-200000}

./mvnw -B -q -pl benchmarks -am package -DskipTests

classpath="benchmarks/target/classes:$(cat benchmarks/target/classpath.txt)"
results=benchmarks/target/results
mkdir -p "$results"
rm -f "$results"/jmh.csv "$results"/memory.csv "$results"/load.txt

# Other processes competing for the cores skew the numbers: sample the load while measuring.
( while sleep 5; do cut -d' ' -f1 /proc/loadavg 2>/dev/null || true; done ) > "$results/load.txt" &
sampler=$!
trap 'kill "$sampler" 2>/dev/null || true' EXIT

echo "Running JMH (log: $results/jmh.log)"
java -cp "$classpath" org.openjdk.jmh.Main \
	-f "$FORKS" -wi "$WARMUP_ITERATIONS" -w "$WARMUP_TIME" -i "$ITERATIONS" -r "$TIME" \
	-rf csv -rff "$results/jmh.csv" "$@" | tee "$results/jmh.log" | grep -E '^(# Run progress|Benchmark |[A-Za-z]+Benchmark\.)' || true
if [[ ! -s "$results/jmh.csv" ]]; then
	echo "JMH wrote no results; see $results/jmh.log" >&2
	exit 1
fi

echo "Measuring heap per key"
java -XX:+UseSerialGC -Xms1g -Xmx1g -cp "$classpath" dev.resilience.benchmarks.MemoryFootprint \
	"$MEMORY_KEYS" "$results/memory.csv"

load_peak=$(sort -g "$results/load.txt" | tail -n 1)
java -cp "$classpath" dev.resilience.benchmarks.BenchmarkReport \
	jmh="$results/jmh.csv" memory="$results/memory.csv" out=docs/benchmarks.md \
	forks="$FORKS" warmupIterations="$WARMUP_ITERATIONS" warmupTime="$WARMUP_TIME" \
	iterations="$ITERATIONS" time="$TIME" memoryKeys="$MEMORY_KEYS" \
	loadBefore="$load_before" loadPeak="${load_peak:-$load_before}" elapsed="$(( $(date +%s) - start ))"
echo "Done in $(( $(date +%s) - start )) s"
