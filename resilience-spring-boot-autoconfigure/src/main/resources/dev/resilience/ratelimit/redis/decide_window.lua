-- Decides a call of a limiter that has exact sliding windows, with or without a token bucket, and
-- no concurrency permits, as decide.lua would (same arguments, same reply, same state, same
-- expiries), in fewer steps. RedisScriptRunner prepends helpers.lua and entries.lua; ScriptArguments picks
-- this script for such a limiter.
--
-- KEYS[1]     the state, as state.lua describes it: struct.pack'ed doubles, the shape, then
--             tokens, updated, version (with a bucket), sequence, and held, heavy, latest, oldest
--             per window; NaN for a field not set. A state of another shape is taken for none;
--             without a state, the windows' entries are deleted.
-- KEYS[1 + i] window i's entries: a sorted set (entries.lua)
-- KEYS[#KEYS] with pause, after the windows' sets, the key's pause, read first (decide_inputs.lua)
-- Replies ScriptArguments.ReplyField's slots, then remaining and microseconds until more for the
-- bucket and each window, packed as the arguments are; -1 and now when the deadline has passed.
--
-- Speed (helpers.lua says why calls, closures and number conversions count): state.lua's general
-- machinery (a closure per rule and per step, a table of slots copied on each write) cost more
-- than the window's own commands. Here the state stays in the array v as it was read, NaN for a
-- field not set, and is packed back from it; the rules are inline. The common path (nothing left
-- the windows, their limits far off) calls TIME, GET, then ZADD and PEXPIRE per window, and SET:
-- each window's set needs its entry and its exact expiry, so those two calls are the floor. (A
-- key's first decision also asks whether its windows' sets exist.)
-- Inputs: cost, max_wait, deadline, commit, pause (decide_inputs.lua, prepended); then ARGV[2 + i], window
-- i's period in whole milliseconds (rounded up) as a decimal: formatting a number costs the server
-- about as much as a command, and a window's set most often expires one period after now.

-- The state's slots: 1 the shape, 2 to 4 the bucket's, then the sequence, then window i's four
-- from SEQUENCE + 4i - 3 on (held, heavy, latest, oldest).
local SEQUENCE = (capacity > 0) and 5 or 2
local size = SEQUENCE + 4 * window_count
local shape = ((capacity > 0) and 1 or 0) + 8 * window_count + PACKED_ENTRIES
local format = string.rep('<d', size) -- '<' before each is allowed, and one string fewer to build
local NONE = 0 / 0

local v
local stored = redis.call('GET', KEYS[1])
if stored and #stored == 8 * size then
	v = { struct.unpack(format, stored) }
	if v[1] ~= shape then
		v = nil
	end
end
if not v then
	-- none, or another shape's: the windows' entries go with it (state.lua's load says why)
	if redis.call('EXISTS', unpack(KEYS, 2, 1 + window_count)) > 0 then
		redis.call('DEL', unpack(KEYS, 2, 1 + window_count))
	end
	v = { shape }
	for j = 2, size do
		v[j] = NONE
	end
end
local dirty = false -- whether v differs from what is stored

-- the bucket before the call
local before_tokens, before_updated, before_version = capacity, now, 0
local tokens, updated
local at = now
if capacity > 0 then
	if v[2] == v[2] then
		before_tokens, before_updated, before_version = v[2], v[3], v[4]
	end
	tokens, updated = refill(before_tokens, before_updated, now)
	if updated > now or tokens < cost then
		at = bucket_available_at(tokens, updated, now, cost)
	end
end

-- Each window: forget what left it by now (entries leave oldest first, so none has while the
-- oldest is in the window; when every entry cost 1, heavy is 0 and the count removed is the cost
-- freed), then the earliest time it admits the call, never before its latest entry.
local limits, periods = {}, {}
for i = 1, window_count do
	local b = SEQUENCE + 4 * i - 4
	local limit, period = struct.unpack('<dd', ARGV[1], WINDOWS + 16 * i)
	local key = KEYS[1 + i]
	limits[i], periods[i] = limit, period
	local held = v[b + 1]
	if held == held and held > 0 then
		local cutoff = now - period
		local oldest = v[b + 4]
		if oldest ~= oldest or oldest <= cutoff then
			if v[b + 3] <= cutoff then
				-- every entry has left; the set expires about now, or has
				redis.call('DEL', key)
				v[b + 1], v[b + 2], v[b + 4] = 0, 0, NONE
				dirty = true
				held = 0
			else
				local heavy = v[b + 2]
				local freed, count, next_oldest = prune_entries(key, cutoff, heavy == heavy and heavy > 0,
					oldest == oldest)
				if count > 0 then
					held = held - freed
					v[b + 1] = held
					if freed > count then
						v[b + 2] = heavy - (freed - count)
					end
				end
				if count > 0 or next_oldest then
					v[b + 4] = next_oldest or NONE
					dirty = true
				end
			end
		end
	elseif held ~= held then
		held = 0
	end
	local latest = v[b + 3]
	if latest == latest and latest > at then
		at = latest
	end
	local target = held + cost - limit
	if target > 0 then
		-- Entries leave oldest first, each costing at least 1: the first "target" of them free enough
		-- (the last of those read is the oldest).
		local entries = redis.call('ZRANGE', key, string.format('%d', -target), '-1')
		local freed, free_at = 0, nil
		for j = #entries, 1, -1 do
			freed = freed + entry_cost(entries[j])
			if freed >= target then
				free_at = entry_time(entries[j]) + period
				break
			end
		end
		if not free_at then
			if cost > limit then
				error('cost ' .. cost .. ' exceeds the window limit of ' .. limit)
			end
			-- Redis evicted entries the state counts: all have surely left one period after the newest
			free_at = v[b + 3] + period
		end
		if free_at > at then
			at = free_at
		end
	end
end

local wait = at - now
local status, waited, retry_after, seen_at, sequence = 1, wait, 0, at, 0
if wait > max_wait then
	status, waited, retry_after, seen_at = 0, 0, wait, now
elseif not commit then
	waited, seen_at = 0, now
else
	-- taken: the changes go straight into v
	if capacity > 0 then
		if at ~= now then
			tokens, updated = refill(before_tokens, before_updated, at)
		end
		tokens = tokens - cost
		v[2], v[3], v[4] = tokens, updated, before_version + 1
	end
	sequence = v[SEQUENCE]
	sequence = ((sequence == sequence) and sequence or 0) + 1
	v[SEQUENCE] = sequence
	local member, score = entry(at, sequence, cost), string.format('%d', -at)
	for i = 1, window_count do
		local b = SEQUENCE + 4 * i - 4
		redis.call('ZADD', KEYS[1 + i], score, member)
		local held = v[b + 1]
		if held ~= held or held == 0 then
			held = 0
			v[b + 4] = at
		end
		v[b + 1] = held + cost
		if cost > 1 then
			local heavy = v[b + 2]
			v[b + 2] = ((heavy == heavy) and heavy or 0) + cost - 1
		end
		v[b + 3] = at
	end
end

-- the reply: ScriptArguments.ReplyField, then the quotas at seen_at
local result = { status, now, waited, retry_after, 0, 0, sequence, before_version, before_tokens, before_updated,
	tokens or 0, updated or 0 }
local n = 12
if capacity > 0 then
	local qt, qu = refill(tokens, updated, seen_at)
	result[13] = qt
	result[14] = (qt >= capacity) and 0 or (bucket_available_at(qt, qu, seen_at, qt + 1) - seen_at)
	n = 14
end
for i = 1, window_count do
	local b = SEQUENCE + 4 * i - 4
	local key, limit, period = KEYS[1 + i], limits[i], periods[i]
	local held = v[b + 1]
	if held ~= held then
		held = 0
	end
	local used = held
	if seen_at > now and used > 0 then
		-- entries admitted by seen_at - period will have left by then
		used = used - cost_of(redis.call('ZRANGEBYSCORE', key, string.format('%d', period - seen_at), '+inf'))
	end
	local until_more = 0
	if held > 0 then
		local oldest
		if seen_at == now then
			-- pruned at now: the oldest entry is in the window
			oldest = v[b + 4]
			if oldest ~= oldest then
				local tail = redis.call('ZRANGE', key, '-1', '-1')
				-- none when Redis evicted the set: its entries all leave by one period after the newest
				oldest = (#tail > 0) and entry_time(tail[1]) or v[b + 3]
				v[b + 4] = oldest
				dirty = true
			end
		else
			-- the oldest entry made after seen_at - period: there is one, the call's own at seen_at
			oldest = entry_time(redis.call('ZREVRANGEBYSCORE', key, string.format('(%d', period - seen_at), '-inf',
				'LIMIT', '0', '1')[1])
		end
		if oldest + period > seen_at then
			until_more = oldest + period - seen_at
		end
	end
	result[n + 1] = (limit > used) and (limit - used) or 0
	result[n + 2] = until_more
	n = n + 2
end

if status == 1 and commit then
	-- Every key lives exactly as long as it differs from a new key's state: each window's set
	-- until its newest entry leaves, the state until the last of them and the bucket's refill.
	local horizon, horizon_ms = now, nil
	if capacity > 0 then
		horizon = bucket_available_at(tokens, updated, updated, capacity)
	end
	for i = 1, window_count do
		local until_empty = at + periods[i]
		-- admitted now, the set lives one period: its milliseconds come ready-made (ARGV[2 + i])
		local ms = (at == now) and ARGV[2 + i] or string.format('%d', cdiv(until_empty - now, 1000))
		redis.call('PEXPIRE', KEYS[1 + i], ms)
		if until_empty > horizon then
			-- the state lives as long as this set, to the millisecond: the same number
			horizon, horizon_ms = until_empty, ms
		end
	end
	redis.call('SET', KEYS[1], struct.pack(format, unpack(v, 1, size)), 'PX',
		horizon_ms or string.format('%d', cdiv(horizon - now, 1000)))
elseif dirty then
	-- nothing taken: only what left the windows (and the oldest entry read) is written, the
	-- expiry stays (a new key has no fields to change: its windows are empty). Not failing for it:
	-- as the script's first write, a full Redis (noeviction) refuses it, and the decision stands.
	redis.pcall('SET', KEYS[1], struct.pack(format, unpack(v, 1, size)), 'KEEPTTL')
end
return struct.pack(string.rep('<d', n), unpack(result, 1, n))
