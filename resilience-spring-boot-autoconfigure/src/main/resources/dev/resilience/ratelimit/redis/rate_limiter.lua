-- One rate limiter, one key: decides a call over every constraint at once (token bucket, sliding
-- windows, concurrency leases), gives a call back, or returns its permit. Mirrors
-- dev.resilience.ratelimit.LimiterAlgorithm; see RedisRateLimitStore for the layout.
--
-- Times are integer microseconds of the server's clock (TIME): about 1.7e15 today, exact in a
-- Lua number (a double) below 2^53. The store checks at startup that every product formed here
-- (capacity * refill period, limit * period) stays below 2^53 too.
--
-- KEYS[1]        hash: bucket (bt tokens, bu time, bv version), sequence n, hold estimate h,
--                per window i: log (l<i> latest admission, c<i> cost held) or counter
--                (s, p, c, a, q and the saved S, P, C, A of the latest admission)
-- KEYS[2..]      one sorted set per log window (member "<sequence>:<cost>", score = time)
-- KEYS[#KEYS]    the leases, when max-concurrent > 0 (member = sequence, score = start)
--
-- ARGV[1]  op: d decide, i inspect, g give back, r release, x reset
-- ARGV[2]  cost          ARGV[3] max wait        ARGV[4] deadline (0: none); decide only
-- ARGV[5]  sequence      ARGV[6] time of the call          (give back, release)
-- ARGV[7..9]   bucket version, tokens and time after the call (give back)
-- ARGV[10..12] bucket tokens, time and version before the call (give back)
-- ARGV[13] capacity (0: no bucket)  ARGV[14] refill tokens  ARGV[15] refill period
-- ARGV[16] 1 interval refill        ARGV[17] 1 counter windows
-- ARGV[18] max concurrent           ARGV[19] lease timeout   ARGV[20] window count
-- ARGV[21..] limit and period of each window

local op = ARGV[1]
local cost = tonumber(ARGV[2])
local cap = tonumber(ARGV[13])
local rate = tonumber(ARGV[14])
local period = tonumber(ARGV[15])
local interval = ARGV[16] == '1'
local counter = ARGV[17] == '1'
local max_concurrent = tonumber(ARGV[18])
local lease_timeout = tonumber(ARGV[19])
local window_count = tonumber(ARGV[20])
local state = KEYS[1]
local lease_key = (max_concurrent > 0) and KEYS[#KEYS] or nil

local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000000 + tonumber(clock[2])

if op == 'd' then
	local deadline = tonumber(ARGV[4])
	if deadline > 0 and now > deadline then
		-- The caller gave up on this call before it got here (a frozen or slow server): deciding
		-- now would take a permit nobody uses.
		return { -1, now }
	end
end

if op == 'x' then
	redis.call('DEL', unpack(KEYS))
	return { 1, now }
end

-- floor(a / b) and ceil(a / b) for integers 0 <= a < 2^53, b > 0, exact despite doubles
local function fdiv(a, b)
	local q = math.floor(a / b)
	if q * b > a then
		q = q - 1
	elseif (q + 1) * b <= a then
		q = q + 1
	end
	return q
end

local function cdiv(a, b)
	local q = fdiv(a, b)
	if q * b < a then
		q = q + 1
	end
	return q
end

local fields = { 'bt', 'bu', 'bv', 'n', 'h' }
for i = 1, window_count do
	for _, f in ipairs(counter and { 's', 'p', 'c', 'a', 'q', 'S', 'P', 'C', 'A' } or { 'l', 'c' }) do
		fields[#fields + 1] = f .. i
	end
end
local stored = redis.call('HMGET', state, unpack(fields))
local h = {}
for i, f in ipairs(fields) do
	h[f] = tonumber(stored[i])
end
local dirty = {}

local function set(f, v)
	h[f] = v
	dirty[f] = true
end

-- Token bucket (TokenBucket.java): tokens at a time; a time in the future is a reservation.

local function refill(tokens, updated, at)
	local elapsed = at - updated
	local missing = cap - tokens
	if elapsed <= 0 then
		return tokens, updated
	end
	if missing <= 0 then
		if interval then
			return tokens, updated + fdiv(elapsed, period) * period
		end
		return tokens, at
	end
	if interval then
		local periods = fdiv(elapsed, period)
		if periods == 0 then
			return tokens, updated
		end
		if periods >= cdiv(missing, rate) then
			return cap, updated + periods * period
		end
		return tokens + periods * rate, updated + periods * period
	end
	if elapsed >= cdiv(missing * period, rate) then
		return cap, at
	end
	local added = fdiv(elapsed * rate, period)
	if added == 0 then
		return tokens, updated
	end
	-- keep the fraction of the next token already earned
	return tokens + added, updated + cdiv(added * period, rate)
end

local function bucket_available_at(tokens, updated, not_before, c)
	local rt, ru = refill(tokens, updated, not_before)
	local earliest = math.max(not_before, ru)
	local missing = c - rt
	if missing <= 0 then
		return earliest
	end
	local wait
	if interval then
		wait = cdiv(missing, rate) * period
	else
		wait = cdiv(missing * period, rate)
	end
	return math.max(earliest, ru + wait)
end

local function most_earned_between(from, to)
	if to <= from then
		return 0
	end
	if to - from >= cdiv(cap * period, rate) + period then
		return cap -- capped by the caller anyway
	end
	if interval then
		return cdiv(to - from, period) * rate
	end
	return cdiv((to - from) * rate, period)
end

-- Sliding windows (WindowLog.java, WindowCounter.java)

local function window(i)
	return tonumber(ARGV[19 + 2 * i]), tonumber(ARGV[20 + 2 * i])
end

local function entry_cost(member)
	return tonumber(string.match(member, ':(%d+)$'))
end

local function log_prune(i, at)
	local limit, wp = window(i)
	local gone = redis.call('ZRANGEBYSCORE', KEYS[1 + i], '-inf', at - wp)
	if #gone > 0 then
		local freed = 0
		for _, m in ipairs(gone) do
			freed = freed + entry_cost(m)
		end
		redis.call('ZREMRANGEBYSCORE', KEYS[1 + i], '-inf', at - wp)
		set('c' .. i, (h['c' .. i] or 0) - freed)
	end
end

-- cost of the entries admitted at or before a time
local function log_cost_until(i, at)
	local total = 0
	for _, m in ipairs(redis.call('ZRANGEBYSCORE', KEYS[1 + i], '-inf', at)) do
		total = total + entry_cost(m)
	end
	return total
end

local function log_available_at(i, not_before, c)
	local limit, wp = window(i)
	local start = math.max(not_before, h['l' .. i] or -1)
	local held = h['c' .. i] or 0
	local target = held + c - limit
	if target <= 0 then
		return start
	end
	-- Entries leave oldest first, each costing at least 1: the first "target" of them free enough.
	local entries = redis.call('ZRANGE', KEYS[1 + i], 0, target - 1, 'WITHSCORES')
	local freed = 0
	for j = 1, #entries, 2 do
		freed = freed + entry_cost(entries[j])
		if freed >= target then
			return math.max(start, tonumber(entries[j + 1]) + wp)
		end
	end
	error('cost ' .. c .. ' exceeds the window limit of ' .. limit)
end

local function log_remaining(i, at)
	local limit, wp = window(i)
	local used = (h['c' .. i] or 0)
	if at > now then
		used = used - log_cost_until(i, at - wp)
	end
	return math.max(0, limit - used)
end

local function log_until_more(i, at)
	local limit, wp = window(i)
	local oldest = redis.call('ZRANGEBYSCORE', KEYS[1 + i], '(' .. (at - wp), '+inf', 'WITHSCORES', 'LIMIT', 0, 1)
	if #oldest == 0 then
		return 0
	end
	return math.max(0, tonumber(oldest[2]) + wp - at)
end

local function cw(i)
	return h['s' .. i] or now, h['p' .. i] or 0, h['c' .. i] or 0, h['a' .. i] or -1
end

local function cw_window_start(start, wp, at)
	return start + fdiv(at - start, wp) * wp
end

local function cw_previous_at(start, previous, current, wp, ws)
	if ws == start then
		return previous
	end
	return (ws - start == wp) and current or 0
end

local function cw_estimate(wp, ws, previous, current, at)
	return previous * ((wp - (at - ws)) / wp) + current
end

local function counter_prune(i, at)
	local limit, wp = window(i)
	local start, previous, current = cw(i)
	if at - start >= wp then
		local ns = cw_window_start(start, wp, at)
		set('p' .. i, cw_previous_at(start, previous, current, wp, ns))
		set('c' .. i, 0)
		set('s' .. i, ns)
	end
end

local function counter_available_at(i, not_before, c)
	local limit, wp = window(i)
	local start, previous, current, last = cw(i)
	local from = math.max(not_before, last, start)
	local ws = cw_window_start(start, wp, from)
	local prev = cw_previous_at(start, previous, current, wp, ws)
	local cur = (ws == start) and current or 0
	if cw_estimate(wp, ws, prev, cur, from) + c <= limit then
		return from
	end
	local room = limit - c - cur
	if room >= 0 then
		return math.max(from, ws + wp - math.floor(room * wp / prev))
	end
	local next_start = ws + wp
	return math.max(next_start, next_start + wp - math.floor((limit - c) * wp / cur))
end

local function counter_remaining(i, at)
	local limit, wp = window(i)
	local start, previous, current = cw(i)
	local ws = cw_window_start(start, wp, math.max(at, start))
	local cur = (ws == start) and current or 0
	local used = cw_estimate(wp, ws, cw_previous_at(start, previous, current, wp, ws), cur, math.max(at, ws))
	return math.max(0, limit - math.ceil(used))
end

local function counter_until_more(i, at)
	local limit, wp = window(i)
	local start, previous, current = cw(i)
	local ws = cw_window_start(start, wp, math.max(at, start))
	local cur = (ws == start) and current or 0
	if cw_previous_at(start, previous, current, wp, ws) + cur == 0 then
		return 0
	end
	return math.max(0, wp - (at - ws))
end

local function prune_windows(at)
	for i = 1, window_count do
		if counter then
			counter_prune(i, at)
		else
			log_prune(i, at)
		end
	end
end

local function windows_available_at(not_before, c)
	local at = not_before
	for i = 1, window_count do
		if counter then
			at = math.max(at, counter_available_at(i, not_before, c))
		else
			at = math.max(at, log_available_at(i, not_before, c))
		end
	end
	return at
end

-- Leases (Leases.java)

local function leases_prune(at)
	redis.call('ZREMRANGEBYSCORE', lease_key, '-inf', at - lease_timeout)
end

local function oldest_lease()
	local oldest = redis.call('ZRANGE', lease_key, 0, 0, 'WITHSCORES')
	return tonumber(oldest[2])
end

local function permit_estimate(at)
	local oldest = oldest_lease()
	local held = math.max(0, at - oldest)
	local typical = h['h'] or 0
	local estimate
	if typical <= 0 then
		estimate = held
	elseif typical > held then
		estimate = typical - held
	else
		estimate = typical
	end
	return math.min(math.max(estimate, 1000), oldest + lease_timeout - at)
end

-- Expiry: each key lives exactly as long as it differs from a new key's state.

local function pexpire(key, horizon)
	if horizon > now then
		redis.call('PEXPIRE', key, cdiv(horizon - now, 1000))
	else
		redis.call('DEL', key)
	end
end

local function expire_all()
	local horizon = now
	if cap > 0 and h['bt'] then
		horizon = math.max(horizon, bucket_available_at(h['bt'], h['bu'], h['bu'], cap))
	end
	for i = 1, window_count do
		local limit, wp = window(i)
		if counter then
			local start, previous, current = cw(i)
			if current > 0 then
				horizon = math.max(horizon, start + 2 * wp)
			elseif previous > 0 then
				horizon = math.max(horizon, start + wp)
			end
		else
			local latest = redis.call('ZRANGE', KEYS[1 + i], -1, -1, 'WITHSCORES')
			if #latest > 0 then
				pexpire(KEYS[1 + i], tonumber(latest[2]) + wp)
				horizon = math.max(horizon, tonumber(latest[2]) + wp)
			end
		end
	end
	if lease_key then
		local newest = redis.call('ZRANGE', lease_key, -1, -1, 'WITHSCORES')
		if #newest > 0 then
			pexpire(lease_key, tonumber(newest[2]) + lease_timeout)
			horizon = math.max(horizon, tonumber(newest[2]) + lease_timeout)
		end
	end
	pexpire(state, horizon)
end

local function save()
	local changes = {}
	for f in pairs(dirty) do
		changes[#changes + 1] = f
		changes[#changes + 1] = string.format('%d', h[f])
	end
	if #changes > 0 then
		redis.call('HSET', state, unpack(changes))
	end
end

local function release(sequence, used)
	local start = redis.call('ZSCORE', lease_key, sequence)
	if not start then
		return
	end
	redis.call('ZREM', lease_key, sequence)
	if used then
		local held = math.max(0, now - tonumber(start))
		local typical = h['h'] or 0
		if typical == 0 then
			set('h', math.max(1, held))
		else
			local step = (held - typical) / 8
			step = (step >= 0) and math.floor(step) or math.ceil(step)
			set('h', math.max(1, typical + step))
		end
	end
end

if op == 'r' then
	if redis.call('EXISTS', state) == 1 then
		release(ARGV[5], true)
		save()
		expire_all()
	end
	return { 1, now }
end

if op == 'g' then
	if redis.call('EXISTS', state) == 0 then
		return { 1, now } -- everything expired: the key is as new, nothing to give back
	end
	local sequence = tonumber(ARGV[5])
	local at = tonumber(ARGV[6])
	if cap > 0 and h['bt'] then
		if h['bv'] == tonumber(ARGV[7]) then
			-- nobody took from the bucket since: restore it exactly
			set('bt', tonumber(ARGV[10]))
			set('bu', tonumber(ARGV[11]))
			set('bv', tonumber(ARGV[12]))
		else
			-- put the tokens back, up to the room the bucket had at its fullest since the call
			local rt, ru = refill(h['bt'], h['bu'], now)
			local fullest = math.min(cap, tonumber(ARGV[8]) + most_earned_between(tonumber(ARGV[9]), math.max(now, ru)))
			local returned = math.min(cost, cap - fullest)
			if returned > 0 then
				set('bt', math.min(cap, rt + returned))
				set('bu', ru)
				set('bv', h['bv'] + 1)
			end
		end
	end
	for i = 1, window_count do
		if counter then
			local limit, wp = window(i)
			if sequence == h['q' .. i] then
				set('s' .. i, h['S' .. i])
				set('p' .. i, h['P' .. i])
				set('c' .. i, h['C' .. i])
				set('a' .. i, h['A' .. i])
				set('q' .. i, -1)
			else
				local start, previous, current = cw(i)
				if at >= start and at - start < wp then
					set('c' .. i, math.max(0, current - cost))
				elseif at < start and start - at <= wp then
					set('p' .. i, math.max(0, previous - cost))
				end
				local q = h['q' .. i] or -1
				if q >= 0 and sequence < q then
					local before = h['S' .. i]
					if at >= before and at - before < wp then
						set('C' .. i, math.max(0, h['C' .. i] - cost))
					elseif at < before and before - at <= wp then
						set('P' .. i, math.max(0, h['P' .. i] - cost))
					end
				end
			end
		else
			if redis.call('ZREM', KEYS[1 + i], string.format('%d:%d', sequence, cost)) == 1 then
				set('c' .. i, h['c' .. i] - cost)
				if at == h['l' .. i] then
					local latest = redis.call('ZRANGE', KEYS[1 + i], -1, -1, 'WITHSCORES')
					set('l' .. i, (#latest > 0) and tonumber(latest[2]) or -1)
				end
			end
		end
	end
	if lease_key then
		release(ARGV[5], false)
	end
	save()
	expire_all()
	return { 1, now }
end

-- Decide (d) or inspect (i): admitted at the earliest time every constraint admits the call.
local commit = op == 'd'
local max_wait = tonumber(ARGV[3])
local bt, bu = cap, now
if cap > 0 and h['bt'] then
	bt, bu = h['bt'], h['bu']
end
local at = now
local rt, ru
if cap > 0 then
	rt, ru = refill(bt, bu, now)
	if ru > now or rt < cost then
		at = bucket_available_at(rt, ru, now, cost)
	end
end
prune_windows(now)
at = math.max(at, windows_available_at(now, cost))
local in_flight = 0
if lease_key then
	leases_prune(now)
	in_flight = redis.call('ZCARD', lease_key)
end
local concurrency_full = lease_key ~= nil and in_flight >= max_concurrent
local wait = at - now

local function describe(status, seen_at, waited, retry_after, limited, tokens, updated, sequence)
	local reply = { status, now, waited, retry_after, limited and 1 or 0, in_flight, sequence or 0,
		h['bv'] or 0, bt, bu, tokens or 0, updated or 0 }
	if cap > 0 then
		local qt, qu = refill(tokens, updated, seen_at)
		reply[#reply + 1] = qt
		reply[#reply + 1] = (qt >= cap) and 0 or (bucket_available_at(qt, qu, seen_at, qt + 1) - seen_at)
	end
	for i = 1, window_count do
		if counter then
			reply[#reply + 1] = counter_remaining(i, seen_at)
			reply[#reply + 1] = counter_until_more(i, seen_at)
		else
			reply[#reply + 1] = log_remaining(i, seen_at)
			reply[#reply + 1] = log_until_more(i, seen_at)
		end
	end
	return reply
end

if concurrency_full or wait > max_wait or not commit then
	save()
	local permitted = not concurrency_full and wait <= max_wait
	local retry_after = wait
	if concurrency_full then
		retry_after = math.max(wait, permit_estimate(now))
	end
	return describe(permitted and 1 or 0, now, 0, permitted and 0 or retry_after, concurrency_full and wait <= max_wait,
		rt, ru)
end

local before_version = h['bv'] or 0
if cap > 0 then
	if at ~= now then
		rt, ru = refill(bt, bu, at)
	end
	set('bt', rt - cost)
	set('bu', ru)
	set('bv', before_version + 1)
end
local sequence = 0
if window_count > 0 or lease_key then
	sequence = (h['n'] or 0) + 1
	set('n', sequence)
	for i = 1, window_count do
		local limit, wp = window(i)
		if counter then
			local start, previous, current, last = cw(i)
			set('S' .. i, start)
			set('P' .. i, previous)
			set('C' .. i, current)
			set('A' .. i, last)
			set('q' .. i, sequence)
			counter_prune(i, at)
			set('c' .. i, (h['c' .. i] or 0) + cost)
			set('a' .. i, math.max(last, at))
			if not h['s' .. i] then
				set('s' .. i, start)
			end
		else
			redis.call('ZADD', KEYS[1 + i], at, string.format('%d:%d', sequence, cost))
			set('c' .. i, (h['c' .. i] or 0) + cost)
			set('l' .. i, at)
		end
	end
	if lease_key then
		redis.call('ZADD', lease_key, at, string.format('%d', sequence))
		in_flight = in_flight + 1
	end
end
save()
expire_all()
local reply = describe(1, at, wait, 0, false, rt and (rt - cost), ru, sequence)
reply[8] = before_version -- with the bucket before and after the call: for an exact give-back
return reply
