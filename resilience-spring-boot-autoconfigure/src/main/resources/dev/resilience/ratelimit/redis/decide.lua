-- Decides a call over every constraint at once (token bucket, sliding windows, concurrency
-- leases): admitted at the earliest time every constraint admits it, when that is within its
-- maximum wait. Inspecting tells what a decision would say, and takes nothing.
-- Replies ScriptArguments.ReplyField's slots, then remaining and microseconds until more for the
-- bucket and each window, packed as the arguments are; -1 and now when the deadline has passed.
-- Inputs: cost, max_wait, deadline, commit, pause (decide_inputs.lua, prepended); with pause, the
-- key's pause is the last key, after those state.lua names, and is read first.

load()

-- The windows' rules, defined for the limiter's algorithm only: each definition costs a closure
-- per call. prune: forget what left the window by now; available_at: the earliest time, not
-- before not_before, at which the window admits c more; remaining, until_more: its quota at a time;
-- fold, for counters: calls leave their journal.
local prune, window_available_at, window_remaining, window_until_more, fold
if window_count > 0 and counters then
	local function estimate(period, ws, previous, current, at)
		return previous * ((period - (at - ws)) / period) + current
	end

	prune = function(i, at)
		prune_counts(base[i], periods[i], at)
	end

	-- moves the journal's first n numbers (n / 3 calls) into the counts before it (state.lua)
	fold = function(n)
		for i = 1, window_count do
			for j = 1, n, 3 do
				add_count(base[i] + BEFORE, periods[i], journal[j + 1], journal[j + 2])
			end
		end
		drop_journal(1, n)
	end

	window_available_at = function(i, not_before, c)
		local limit, period = limits[i], periods[i]
		local start, previous, current, last = counts(base[i])
		local from = math.max(not_before, last, start)
		local ws = window_start(start, period, from)
		local prev = previous_count_at(start, previous, current, period, ws)
		local cur = (ws == start) and current or 0
		if estimate(period, ws, prev, cur, from) + c <= limit then
			return from
		end
		local room = limit - c - cur
		if room >= 0 then
			return math.max(from, ws + period - math.floor(room * period / prev))
		end
		local next_start = ws + period
		return math.max(next_start, next_start + period - math.floor((limit - c) * period / cur))
	end

	window_remaining = function(i, at)
		local period = periods[i]
		local start, previous, current = counts(base[i])
		local ws = window_start(start, period, math.max(at, start))
		local cur = (ws == start) and current or 0
		local used = estimate(period, ws, previous_count_at(start, previous, current, period, ws), cur,
			math.max(at, ws))
		return math.max(0, limits[i] - math.ceil(used))
	end

	window_until_more = function(i, at)
		local period = periods[i]
		local start, previous, current = counts(base[i])
		local ws = window_start(start, period, math.max(at, start))
		local cur = (ws == start) and current or 0
		if previous_count_at(start, previous, current, period, ws) + cur == 0 then
			return 0
		end
		return math.max(0, period - (at - ws))
	end
elseif window_count > 0 then
	-- Only at now: entries leave oldest first, so none has while the oldest is in the window
	-- (entries.lua's prune_entries). What is the oldest after a removal, when it did not tell, is
	-- read when asked (window_until_more).
	prune = function(i)
		local held = h[base[i] + HELD] or 0
		if held == 0 then
			return
		end
		local cutoff = now - periods[i]
		local oldest = h[base[i] + OLDEST]
		if oldest and oldest > cutoff then
			return
		end
		if h[base[i] + LATEST] <= cutoff then
			-- every entry has left; the set expires about now, or has
			redis.call('DEL', KEYS[1 + i])
			put(base[i] + HELD, 0)
			put(base[i] + HEAVY, 0)
			put(base[i] + OLDEST, nil)
			return
		end
		local heavy = h[base[i] + HEAVY] or 0
		local freed, count, next_oldest = prune_entries(KEYS[1 + i], cutoff, heavy > 0, oldest ~= nil)
		if count > 0 then
			put(base[i] + HELD, held - freed)
			if freed > count then
				put(base[i] + HEAVY, heavy - (freed - count))
			end
		end
		if count > 0 or next_oldest then
			put(base[i] + OLDEST, next_oldest)
		end
	end

	window_available_at = function(i, not_before, c)
		local limit = limits[i]
		local start = math.max(not_before, h[base[i] + LATEST] or -1)
		local target = (h[base[i] + HELD] or 0) + c - limit
		if target <= 0 then
			return start
		end
		-- Entries leave oldest first, each costing at least 1: the first "target" of them free enough
		-- (the last of those read is the oldest).
		local entries = redis.call('ZRANGE', KEYS[1 + i], string.format('%d', -target), '-1')
		local freed = 0
		for j = #entries, 1, -1 do
			freed = freed + entry_cost(entries[j])
			if freed >= target then
				return math.max(start, entry_time(entries[j]) + periods[i])
			end
		end
		if c > limit then
			error('cost ' .. c .. ' exceeds the window limit of ' .. limit)
		end
		-- Redis evicted entries the state counts: all have surely left one period after the newest
		return math.max(start, h[base[i] + LATEST] + periods[i])
	end

	window_remaining = function(i, at)
		local used = h[base[i] + HELD] or 0
		if at > now and used > 0 then
			-- entries admitted by at - period will have left by then
			used = used - cost_of(redis.call('ZRANGEBYSCORE', KEYS[1 + i], string.format('%d', periods[i] - at), '+inf'))
		end
		return math.max(0, limits[i] - used)
	end

	window_until_more = function(i, at)
		if (h[base[i] + HELD] or 0) == 0 then
			return 0
		end
		local oldest
		if at == now then
			-- pruned at now: the oldest entry is in the window
			oldest = h[base[i] + OLDEST]
			if not oldest then
				local tail = redis.call('ZRANGE', KEYS[1 + i], '-1', '-1')
				-- none when Redis evicted the set: its entries all leave by one period after the newest
				oldest = (#tail > 0) and entry_time(tail[1]) or h[base[i] + LATEST]
				put(base[i] + OLDEST, oldest)
			end
		else
			-- the oldest entry made after at - period: there is one, the call's own at "at"
			oldest = entry_time(redis.call('ZREVRANGEBYSCORE', KEYS[1 + i], string.format('(%d', periods[i] - at),
				'-inf', 'LIMIT', '0', '1')[1])
		end
		return math.max(0, oldest + periods[i] - at)
	end
end

-- the bucket before the call
local before_tokens, before_updated, before_version = capacity, now, 0
if capacity > 0 and h[TOKENS] then
	before_tokens, before_updated, before_version = h[TOKENS], h[UPDATED], h[VERSION]
end
local at = now
local tokens, updated
if capacity > 0 then
	tokens, updated = refill(before_tokens, before_updated, now)
	if updated > now or tokens < cost then
		at = bucket_available_at(tokens, updated, now, cost)
	end
end
for i = 1, window_count do
	prune(i, now)
	at = math.max(at, window_available_at(i, now, cost))
end
if window_count > 0 and counters then
	-- the calls whose time has come leave the journal
	local reached = 0
	while reached < #journal and journal[reached + 2] <= now do
		reached = reached + 3
	end
	if reached > 0 then
		fold(reached)
	end
end
local in_flight = 0
if lease_key then
	-- counted before removed: a write, even of nothing, would let the rest past a full Redis (state.lua's load)
	local expired = string.format('%d', now - lease_timeout)
	if redis.call('ZCOUNT', lease_key, '-inf', expired) > 0 then
		redis.call('ZREMRANGEBYSCORE', lease_key, '-inf', expired)
	end
	in_flight = redis.call('ZCARD', lease_key)
end
local concurrency_full = lease_key ~= nil and in_flight >= max_concurrent
local wait = at - now

-- the reply: ScriptArguments.ReplyField, then the quotas at seen_at
local function reply(status, seen_at, waited, retry_after, limited, sequence)
	local result = { status, now, waited, retry_after, limited and 1 or 0, in_flight, sequence, before_version,
		before_tokens, before_updated, tokens or 0, updated or 0 }
	if capacity > 0 then
		local qt, qu = refill(tokens, updated, seen_at)
		result[#result + 1] = qt
		result[#result + 1] = (qt >= capacity) and 0 or (bucket_available_at(qt, qu, seen_at, qt + 1) - seen_at)
	end
	for i = 1, window_count do
		result[#result + 1] = window_remaining(i, seen_at)
		result[#result + 1] = window_until_more(i, seen_at)
	end
	return struct.pack(string.rep('<d', #result), unpack(result))
end

if concurrency_full or wait > max_wait or not commit then
	local permitted = not concurrency_full and wait <= max_wait
	local retry_after = 0
	if not permitted then
		retry_after = wait
		if concurrency_full then
			-- when a permit is likely back: the oldest lease's typical hold, within its timeout
			local oldest = tonumber(redis.call('ZRANGE', lease_key, '0', '0', 'WITHSCORES')[2])
			local held = math.max(0, now - oldest)
			local typical = h[HOLD] or known_hold
			local estimate = held
			if typical > held then
				estimate = typical - held
			elseif typical > 0 then
				estimate = typical
			end
			retry_after = math.max(wait, math.min(math.max(estimate, 1000), oldest + lease_timeout - now))
		end
	end
	local result = reply(permitted and 1 or 0, now, 0, retry_after, concurrency_full and wait <= max_wait, 0)
	-- nothing taken: only what left the windows (and the oldest entry read) is written, the
	-- expiry stays (a new key has no fields to change: its windows are empty). Not failing for it:
	-- as the script's first write, a full Redis (noeviction) refuses it, and the decision stands.
	if dirty then
		redis.pcall('SET', state_key, encode(), 'KEEPTTL')
	end
	return result
end

-- Taken: finish() writes the state whatever changed, so the changes go straight into h.
if capacity > 0 then
	if at ~= now then
		tokens, updated = refill(before_tokens, before_updated, at)
	end
	tokens = tokens - cost
	h[TOKENS] = tokens
	h[UPDATED] = updated
	h[VERSION] = before_version + 1
end
local sequence = 0
if window_count > 0 or lease_key then
	sequence = (h[SEQUENCE] or 0) + 1
	h[SEQUENCE] = sequence
	if window_count > 0 and counters and (#journal > 0 or at > now) then
		-- a call ahead of now starts the journal (state.lua), and every call joins it while it holds any
		if #journal == 0 then
			for i = 1, window_count do
				local start, previous, current, last = counts(base[i])
				h[base[i] + BEFORE + START] = start
				h[base[i] + BEFORE + PREVIOUS] = previous
				h[base[i] + BEFORE + CURRENT] = current
				h[base[i] + BEFORE + ADMITTED] = last
			end
		elseif #journal == 3 * JOURNAL_CALLS then
			fold(3) -- full: the oldest call leaves it early
		end
		journal[#journal + 1] = sequence
		journal[#journal + 1] = at
		journal[#journal + 1] = cost
	end
	for i = 1, window_count do
		if counters then
			add_count(base[i], periods[i], at, cost)
		else
			redis.call('ZADD', KEYS[1 + i], string.format('%d', -at), entry(at, sequence, cost))
			local held = h[base[i] + HELD] or 0
			if held == 0 then
				h[base[i] + OLDEST] = at
			end
			h[base[i] + HELD] = held + cost
			if cost > 1 then
				h[base[i] + HEAVY] = (h[base[i] + HEAVY] or 0) + cost - 1
			end
			h[base[i] + LATEST] = at
		end
	end
	if lease_key then
		redis.call('ZADD', lease_key, string.format('%d', at), string.format('%d', sequence))
		in_flight = in_flight + 1
	end
end
-- the reply first: it may read an exact window's oldest entry, which finish() then stores
local result = reply(1, at, wait, 0, false, sequence)
finish(true)
return result
