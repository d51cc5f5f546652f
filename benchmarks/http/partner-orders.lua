-- wrk script for benchmarks/run-http.sh: GET /partner/orders/{id} with ten API keys in turn, as the
-- sample's partner sees its clients, counting the answers by status.

local keys = 10
local threads = {}

-- Globals, so that done() can read each thread's with thread:get.
counter = 0
ok, rejected, other = 0, 0, 0

function setup(thread)
  table.insert(threads, thread)
end

function request()
  counter = counter + 1
  return wrk.format("GET", "/partner/orders/" .. counter, { ["X-Api-Key"] = "key-" .. (counter % keys) })
end

function response(status, headers, body)
  if status == 200 then
    ok = ok + 1
  elseif status == 429 then
    rejected = rejected + 1
  else
    other = other + 1
  end
end

-- Each thread's counts live in its own Lua state: read them back once the run is done.
function done(summary, latency, requests)
  local total_ok, total_rejected, total_other = 0, 0, 0
  for _, thread in ipairs(threads) do
    total_ok = total_ok + thread:get("ok")
    total_rejected = total_rejected + thread:get("rejected")
    total_other = total_other + thread:get("other")
  end
  local seconds = summary.duration / 1e6
  io.write(string.format("RESULT requests=%d rps=%.0f p50_ms=%.2f p99_ms=%.2f ok=%d rejected=%d other=%d socket_errors=%d\n",
    summary.requests, summary.requests / seconds, latency:percentile(50) / 1000, latency:percentile(99) / 1000,
    total_ok, total_rejected, total_other,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout))
end
