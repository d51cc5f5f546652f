-- The state of a limiter with more than a token bucket, shared by decide.lua, give_back.lua and
-- release.lua: RedisScriptRunner prepends it to each, after helpers.lua.
--
-- Speed: the state is one string, read with one GET and written with its expiry by one SET ... PX
-- (a hash took HMGET, HSET and PEXPIRE), and functions are defined only for what the limiter has.
--
-- KEYS[1]        the state: one string, struct.pack'ed doubles (exact for these integers), the
--                limiter's shape (see below) then the fields below in order (their slots are
--                named by their names in capitals: h[TOKENS], h[base[i] + HELD]), NaN for a field
--                not set; a state of another shape is taken for none. The fields:
--                  tokens, updated, version   the token bucket: tokens at a time (a time in the
--                                             future is a reservation), and its version, counted
--                                             up by every change, for an exact give-back
--                  sequence                   the latest admitted call's number: it names the
--                                             call's window entries and lease
--                  hold                       how long a permit is typically held (Retry-After)
--                  journaled                  with counter windows: the calls in the journal
--                  exact window i             held:i the cost of its entries, heavy:i the part of
--                                             it above one per entry, latest:i its newest entry's
--                                             time, oldest:i its oldest entry's (not set: unknown)
--                  counter window i           start:i, previous:i, current:i, admitted:i (the
--                                             latest admission), then the same four before the
--                                             journal's first call (stale while it is empty)
--                then the journal: the sequence, time and cost of each call in it, oldest first
-- KEYS[2..]      one sorted set per exact window: its entries (entries.lua)
-- KEYS[2 + n]    the leases, when max_concurrent > 0, after the n exact windows' sets: member
--                "<sequence>", score its start
-- KEYS[#KEYS]    last, the key's pause, when a decision of a limiter that pauses takes it
--                (decide_inputs.lua); give_back.lua and release.lua get the decision's keys
--
-- The journal (WindowCounter.java): a call reserved ahead of now moves the counter windows ahead,
-- which drops counts that the calls before it still need once it is given back. So from the first
-- such call on, each window keeps its counts before it, and the key a journal of the calls admitted
-- since (the same for every window): giving one of them back replays the others on those counts,
-- exactly as if it had never been made, in whatever order calls are given back. A call leaves the
-- journal once its time is reached, and the oldest when it holds JOURNAL_CALLS calls, so that the
-- state stays bounded; a call not in it is given back by its counts alone.

local limits, periods = {}, {} -- max_concurrent (0: no concurrency permits) and lease_timeout: helpers.lua

local state_key = KEYS[1]
local lease_key = (max_concurrent > 0) and KEYS[2 + (counters and 0 or window_count)] or nil

-- The state's fields are slots of the array h: h[1] the shape, then the bucket's, the sequence and
-- the typical hold when the limiter has them, then each window's fields from h[base[i] + 1] on, in
-- the order of their names below. Read once by load(); the changes, written with the expiry by
-- finish(). Slots, not names: a name such as 'held:' .. i would be a new string at each access.
local TOKENS, UPDATED, VERSION, SEQUENCE, HOLD, JOURNALED
local size = 1
if capacity > 0 then
	TOKENS, UPDATED, VERSION = 2, 3, 4
	size = 4
end
if window_count > 0 or lease_key then
	size = size + 1
	SEQUENCE = size
end
if lease_key then
	size = size + 1
	HOLD = size
end
if counters and window_count > 0 then
	size = size + 1
	JOURNALED = size -- written from the journal by encode()
end
local HELD, HEAVY, LATEST, OLDEST = 1, 2, 3, 4 -- an exact window's
-- a counter window's counts, then from BEFORE + 1 on the same four before the journal's first call
local START, PREVIOUS, CURRENT, ADMITTED, BEFORE = 1, 2, 3, 4, 4
local base = {}
for i = 1, window_count do
	limits[i], periods[i] = struct.unpack('<dd', ARGV[1], WINDOWS + 16 * i)
	base[i] = size
	size = size + (counters and 2 * BEFORE or OLDEST)
end
local JOURNAL_CALLS = 8 -- the most calls the journal holds: WindowCounter.JOURNAL_CALLS
-- Part of the shape of a state with counter windows: one written when they kept only their latest
-- call's state before it (for its give-back) is of another shape, and taken for none.
local COUNTER_JOURNAL = 8192
-- What the fields are: a state stored under other settings of another shape (a limiter changed
-- between restarts on the same key-prefix) is not read as this one.
local shape = ((capacity > 0) and 1 or 0) + (lease_key and 2 or 0)
	+ ((counters and window_count > 0) and (4 + COUNTER_JOURNAL) or 0) + 8 * window_count
	+ ((not counters and window_count > 0) and PACKED_ENTRIES or 0)
local format = string.rep('<d', size) -- as decide_window.lua's: '<' before each is allowed, one string fewer
local NONE = 0 / 0 -- a field not set: NaN, the one number unequal to itself
local h = {}
local journal = {} -- the sequence, time and cost of each call in it, oldest first, in a row
local dirty = false

-- Reads the state; whether there is one. A state of another shape (the limiter's settings
-- changed) is taken for none. Without a state (expired, or evicted by Redis under maxmemory), the
-- entries of the exact windows' sets go too: they were counted by that state alone, and counted by
-- none they would be taken for this state's entries, held against the limit but never subtracted
-- when they leave. They are looked for first: Redis refuses a script's writes on a full server
-- (maxmemory with noeviction) only until the script has written, and a DEL, even of nothing, is a
-- write.
local function load()
	local stored = redis.call('GET', state_key)
	local values = stored and (#stored >= 8 * size) and { struct.unpack(format, stored) } or nil
	local journaled = values and JOURNALED and values[JOURNALED] or 0
	if not values or values[1] ~= shape or #stored ~= 8 * (size + 3 * journaled) then
		if not counters and window_count > 0 then
			if redis.call('EXISTS', unpack(KEYS, 2, 1 + window_count)) > 0 then
				redis.call('DEL', unpack(KEYS, 2, 1 + window_count))
			end
		end
		if lease_key or (counters and window_count > 0) then
			-- Calls numbered by an earlier state (deleted once back to new, or evicted) may still
			-- return their permits or be given back: a new call taking one of their numbers would
			-- have its lease replaced or returned by them, or its counter windows restored to
			-- before it. So numbering goes on after the held leases and after the clock: the earlier
			-- states numbered from their own clocks, never more than a call a microsecond. (An exact
			-- window's entry is matched by its time too.)
			local highest = now
			if lease_key then
				local members = redis.call('ZRANGE', lease_key, '0', '-1')
				for j = 1, #members do
					highest = math.max(highest, tonumber(members[j]))
				end
			end
			h[SEQUENCE] = highest
		end
		return false
	end
	for i = 2, size do
		if values[i] ~= values[i] then
			values[i] = nil
		end
	end
	values[size + 1] = nil -- struct.unpack's position after the last number
	h = values
	if journaled > 0 then
		journal = { struct.unpack(string.rep('<d', 3 * journaled), stored, 8 * size + 1) }
		journal[3 * journaled + 1] = nil
	end
	return true
end

local function encode()
	local values = { shape }
	for i = 2, size do
		local value = h[i]
		if value == nil then
			value = NONE
		end
		values[i] = value
	end
	if #journal == 0 then
		if JOURNALED then
			values[JOURNALED] = 0
		end
		return struct.pack(format, unpack(values, 1, size))
	end
	values[JOURNALED] = #journal / 3
	for j = 1, #journal do
		values[size + j] = journal[j]
	end
	return struct.pack(string.rep('<d', size + #journal), unpack(values, 1, size + #journal))
end

local function put(field, value)
	h[field] = value
	dirty = true
end

-- Counter windows (WindowCounter.java): the counts from slot c + 1 on, window i's at c = base[i]
-- and those before the journal's first call at c = base[i] + BEFORE: the start of the current
-- fixed window, the cost admitted in it and in the previous one, the latest admission. Defined
-- only when used, as every function here: each definition costs a closure per call.
local counts, window_start, previous_count_at, prune_counts, add_count, drop_journal
if counters and window_count > 0 then
	counts = function(c)
		return h[c + START] or now, h[c + PREVIOUS] or 0, h[c + CURRENT] or 0, h[c + ADMITTED] or -1
	end

	window_start = function(start, period, at)
		return start + fdiv(at - start, period) * period
	end

	previous_count_at = function(start, previous, current, period, ws)
		if ws == start then
			return previous
		end
		return (ws - start == period) and current or 0
	end

	prune_counts = function(c, period, at)
		local start, previous, current = counts(c)
		if at - start >= period then
			local ws = window_start(start, period, at)
			put(c + PREVIOUS, previous_count_at(start, previous, current, period, ws))
			put(c + CURRENT, 0)
			put(c + START, ws)
		end
	end

	add_count = function(c, period, at, cost)
		prune_counts(c, period, at)
		local start, _, current, admitted = counts(c)
		put(c + START, start) -- a new key's windows start now
		put(c + CURRENT, current + cost)
		put(c + ADMITTED, math.max(admitted, at))
	end

	-- drops the journal's n numbers from the from-th on
	drop_journal = function(from, n)
		for _ = 1, n do
			table.remove(journal, from)
		end
		dirty = true
	end
end

-- Expiry: each key lives exactly as long as it differs from a new key's state.

local function expire(key, horizon)
	if horizon > now then
		redis.call('PEXPIRE', key, string.format('%d', cdiv(horizon - now, 1000)))
	else
		redis.call('DEL', key)
	end
end

-- Writes the state and sets every key's expiry; windows_changed: whether the exact windows'
-- newest entries may have changed (else their keys keep their expiry).
local function finish(windows_changed)
	local horizon = now
	if capacity > 0 and h[TOKENS] then
		horizon = math.max(horizon, bucket_available_at(h[TOKENS], h[UPDATED], h[UPDATED], capacity))
	end
	for i = 1, window_count do
		local period = periods[i]
		if counters then
			local start, previous, current, admitted = counts(base[i])
			if current > 0 then
				horizon = math.max(horizon, start + 2 * period)
			elseif previous > 0 then
				horizon = math.max(horizon, start + period)
			end
			-- windows moved ahead by a call given back by its counts alone: nothing is admitted before
			horizon = math.max(horizon, start, admitted)
		elseif (h[base[i] + HELD] or 0) > 0 then
			local until_empty = h[base[i] + LATEST] + period
			if until_empty <= now then
				-- every entry has left the window
				put(base[i] + HELD, 0)
				put(base[i] + HEAVY, 0)
				put(base[i] + OLDEST, nil)
			end
			if windows_changed or until_empty <= now then
				expire(KEYS[1 + i], until_empty)
			end
			horizon = math.max(horizon, until_empty)
		end
	end
	if lease_key then
		local newest = redis.call('ZRANGE', lease_key, '-1', '-1', 'WITHSCORES')
		if #newest > 0 then
			local until_free = tonumber(newest[2]) + lease_timeout
			expire(lease_key, until_free)
			horizon = math.max(horizon, until_free)
		end
	end
	if horizon <= now then
		redis.call('DEL', state_key)
		return
	end
	redis.call('SET', state_key, encode(), 'PX', string.format('%d', cdiv(horizon - now, 1000)))
end

-- Returns a call's lease, if it is still held: used, it updates the typical hold. Only a lease
-- made when the call was admitted ("started") is the call's: numbers repeat when a replica
-- promoted before it had the latest calls (or a clock set back) numbers new calls as the lost ones.
local return_lease
if lease_key then
	return_lease = function(sequence, used, started)
		local start = redis.call('ZSCORE', lease_key, sequence)
		if not start or tonumber(start) ~= started then
			return
		end
		redis.call('ZREM', lease_key, sequence)
		if used then
			local held = math.max(0, now - tonumber(start))
			local typical = h[HOLD] or 0
			if typical == 0 then
				put(HOLD, math.max(1, held))
			else
				local step = (held - typical) / 8
				step = (step >= 0) and math.floor(step) or math.ceil(step)
				put(HOLD, math.max(1, typical + step))
			end
		end
	end
end
