#!/usr/bin/env bash
# Floods the sample app's /partner/orders/{id} (limiter partner-server, ten API keys) with wrk,
# twice, each time in a freshly started app: once with the sample's limits, so that almost every
# request is answered 429, and once with the limits raised so that every request is admitted.
# Prints requests/s and latency percentiles of both, from this one run, writes them into their
# section of docs/benchmarks.md, and checks the target:
# shedding load must not cost more than serving it (rejected requests/s >= admitted requests/s).
#
#   benchmarks/run-http.sh
#
# Settings from the environment: THREADS (2), CONNECTIONS (32), DURATION (10s), WARMUP (10s, a wrk
# run before the measured one, not reported), PORT (18080), HEAP (512m), JAVA_OPTS (more JVM options), SKIP_BUILD (unset: build the
# sample app first; 1: reuse its jar), JAR (the sample app's jar; another build's to compare). Needs wrk
# (apt-get install wrk) and curl. Raw output is kept in benchmarks/target/results/http-*.txt.
set -euo pipefail

cd "$(dirname "$0")/.."
start=$(date +%s)

THREADS=${THREADS:-2}
CONNECTIONS=${CONNECTIONS:-32}
DURATION=${DURATION:-10s}
WARMUP=${WARMUP:-10s}
PORT=${PORT:-18080}
HEAP=${HEAP:-512m}

command -v wrk >/dev/null || { echo "wrk is missing: apt-get install -y wrk" >&2; exit 1; }
if [[ -z "${SKIP_BUILD:-}" ]]; then
	./mvnw -B -q -pl sample-app -am package -DskipTests
fi
jar=${JAR:-$(ls sample-app/target/sample-app-*.jar | grep -v -- '-tests\.jar$' | head -n 1)}
script=benchmarks/http/partner-orders.lua
results=benchmarks/target/results
mkdir -p "$results"
url="http://127.0.0.1:$PORT"

app=""
stop_app() {
	if [[ -n "$app" ]]; then
		kill "$app" 2>/dev/null || true
		wait "$app" 2>/dev/null || true
		app=""
	fi
}
trap stop_app EXIT

# Starts the app with extra arguments and waits until it answers.
start_app() {
	# shellcheck disable=SC2086 # JAVA_OPTS holds several options
	java -Xms"$HEAP" -Xmx"$HEAP" ${JAVA_OPTS:-} -jar "$jar" --server.port="$PORT" --spring.main.banner-mode=off \
		--logging.level.root=warn "$@" > "$results/http-app.log" 2>&1 &
	app=$!
	for _ in $(seq 1 360); do
		if curl -fs -o /dev/null "$url/actuator/health"; then
			return
		fi
		if ! kill -0 "$app" 2>/dev/null; then
			echo "The sample app stopped; see $results/http-app.log" >&2
			exit 1
		fi
		sleep 0.5
	done
	echo "The sample app did not start; see $results/http-app.log" >&2
	exit 1
}

# Runs one scenario in a fresh app: a warm-up flood, then the measured one, whose RESULT line
# (with the load average before it) goes to $results/http-<name>.result.
scenario() {
	local name=$1
	shift
	start_app "$@"
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$WARMUP" -s "$script" "$url" > "$results/http-$name-warmup.txt"
	local load
	load=$(cut -d' ' -f1-3 /proc/loadavg)
	wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s "$script" "$url" > "$results/http-$name.txt"
	stop_app
	echo "$(grep '^RESULT' "$results/http-$name.txt") load_before=${load// /,}" > "$results/http-$name.result"
}

# The sample's partner-server: 30 per 5 s and 300 per 60 s per key, so nearly all are rejected.
scenario rejected
# The same windows with limits no flood reaches: every request admitted, with the same work per
# decision. (A list property given here replaces the whole list, so the periods are repeated.)
scenario admitted \
	'--resilience.rate-limiters.partner-server.windows[0].limit=1000000000' \
	'--resilience.rate-limiters.partner-server.windows[0].period=5s' \
	'--resilience.rate-limiters.partner-server.windows[1].limit=1000000000' \
	'--resilience.rate-limiters.partner-server.windows[1].period=60s'
rejected=$(cat "$results/http-rejected.result")
admitted=$(cat "$results/http-admitted.result")

field() { sed -E "s/.* $2=([^ ]+).*/\1/" <<< "$1"; }
echo
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION (after a $WARMUP warm-up), GET /partner/orders/{id}, 10 API keys, $(nproc) cores"
printf '%-10s %10s %10s %10s %10s %10s %14s\n' scenario 'req/s' 'p50 ms' 'p99 ms' '200' '429' 'load before'
for line in "rejected $rejected" "admitted $admitted"; do
	name=${line%% *}
	printf '%-10s %10s %10s %10s %10s %10s %14s\n' "$name" "$(field "$line" rps)" "$(field "$line" p50_ms)" \
		"$(field "$line" p99_ms)" "$(field "$line" ok)" "$(field "$line" rejected)" "$(field "$line" load_before)"
done
awk -v rr="$(field "$rejected" rps)" -v ar="$(field "$admitted" rps)" \
	-v ok="$(field "$rejected" ok)" -v no="$(field "$rejected" rejected)" 'BEGIN {
	share = (ok + no > 0) ? 100 * no / (ok + no) : 0
	printf "rejected share in the flood: %.1f%% (target >= 95%%)\n", share
	printf "rejected req/s / admitted req/s: %.2f (target >= 1.00): %s\n", rr / ar, (rr >= ar && share >= 95) ? "met" : "not met"
}'

# The same figures as a section of docs/benchmarks.md, between markers that benchmarks/run.sh keeps
# (BenchmarkReport.HTTP_SECTION): replaced when there, else appended.
http_start='<!-- http benchmarks: written by benchmarks/run-http.sh -->'
http_end='<!-- end of http benchmarks -->'
section="$results/http-section.md"
{
	echo "$http_start"
	echo "## HTTP under a flood"
	echo
	echo "Generated by \`benchmarks/run-http.sh\` on $(date -u '+%Y-%m-%d %H:%M') UTC; do not edit, run it again. The sample app's \`GET /partner/orders/{id}\` (limiter \`partner-server\`, ten API keys) flooded by \`wrk -t$THREADS -c$CONNECTIONS -d$DURATION\` after a $WARMUP warm-up, each scenario in a freshly started app (heap $HEAP) on the same $(nproc) cores as wrk: once with the sample's limits, so that nearly every request is answered 429, and once with limits no flood reaches, so that every request is admitted."
	echo
	echo "| Scenario | Requests/s | p50 ms | p99 ms | 200 | 429 | Load before (1, 5, 15 min) |"
	echo "| --- | ---: | ---: | ---: | ---: | ---: | --- |"
	for line in "rejected $rejected" "admitted $admitted"; do
		name=${line%% *}
		echo "| $name | $(field "$line" rps) | $(field "$line" p50_ms) | $(field "$line" p99_ms) | $(field "$line" ok) | $(field "$line" rejected) | $(field "$line" load_before | tr ',' ' ') |"
	done
	echo
	awk -v rr="$(field "$rejected" rps)" -v ar="$(field "$admitted" rps)" \
		-v ok="$(field "$rejected" ok)" -v no="$(field "$rejected" rejected)" 'BEGIN {
		share = (ok + no > 0) ? 100 * no / (ok + no) : 0
		printf "Target: requests/s with at least 95%% rejected at least those with all admitted: %.1f%% rejected, %.2f× the admitted requests/s: **%s**.\n", share, rr / ar, (rr >= ar && share >= 95) ? "met" : "not met"
	}'
	echo "$http_end"
} > "$section"
report=docs/benchmarks.md
if grep -qxF "$http_start" "$report" 2>/dev/null; then
	awk -v start="$http_start" -v end="$http_end" -v file="$section" '
		$0 == start { while ((getline line < file) > 0) print line; skipping = 1; next }
		skipping && $0 == end { skipping = 0; next }
		!skipping { print }' "$report" > "$report.tmp"
	mv "$report.tmp" "$report"
else
	{ [[ -s "$report" ]] && echo; cat "$section"; } >> "$report"
fi
echo "Wrote $report"
echo "Done in $(( $(date +%s) - start )) s"
