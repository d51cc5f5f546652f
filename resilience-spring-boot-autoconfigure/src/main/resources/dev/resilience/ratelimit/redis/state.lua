-- The state of a limiter with more than a token bucket, shared by decide.lua, give_back.lua and
-- release.lua: RedisScriptRunner prepends it to each, after helpers.lua.
--
-- Speed: the state is one string, read with one GET and written with its expiry by one SET ... PX
-- (a hash took HMGET, HSET and PEXPIRE), and functions are defined only for what the limiter has.
--
-- KEYS[1]        the state: one string, struct.pack'ed doubles (exact for these integers), the
--                limiter's shape (see below) then the fields of `fields` in order, NaN for a field
--                not set; a state of another shape is taken for none. The fields:
--                  tokens, updated, version   the token bucket: tokens at a time (a time in the
--                                             future is a reservation), and its version, counted
--                                             up by every change, for an exact give-back
--                  sequence                   the latest admitted call's number: it names the
--                                             call's window entries and lease
--                  hold                       how long a permit is typically held (Retry-After)
--                  exact window i             held:i the cost of its entries, heavy:i the part of
--                                             it above one per entry, latest:i its newest entry's
--                                             time, oldest:i its oldest entry's (not set: unknown)
--                  counter window i           start:i, previous:i, current:i, admitted:i (the
--                                             latest admission), undo:i the latest admission's
--                                             sequence and undo-start:i, undo-previous:i,
--                                             undo-current:i, undo-admitted:i the window before it
-- KEYS[2..]      one sorted set per exact window: member "<sequence>:<cost>", score its time
-- KEYS[#KEYS]    the leases, when max_concurrent > 0: member "<sequence>", score its start

local limits, periods = {}, {} -- window i: ARGV[7 + 2i], ARGV[8 + 2i]

local state_key = KEYS[1]
local lease_key = (max_concurrent > 0) and KEYS[#KEYS] or nil

-- The state's fields, read once by load(); the changes, written with the expiry by finish().
local fields = {}
if capacity > 0 then
	fields = { 'tokens', 'updated', 'version' }
end
if window_count > 0 or lease_key then
	fields[#fields + 1] = 'sequence'
end
if lease_key then
	fields[#fields + 1] = 'hold'
end
for i = 1, window_count do
	limits[i] = tonumber(ARGV[7 + 2 * i])
	periods[i] = tonumber(ARGV[8 + 2 * i])
	if counters then
		for _, f in ipairs({ 'start:', 'previous:', 'current:', 'admitted:', 'undo:', 'undo-start:', 'undo-previous:',
			'undo-current:', 'undo-admitted:' }) do
			fields[#fields + 1] = f .. i
		end
	else
		fields[#fields + 1] = 'held:' .. i
		fields[#fields + 1] = 'heavy:' .. i
		fields[#fields + 1] = 'latest:' .. i
		fields[#fields + 1] = 'oldest:' .. i
	end
end
-- What the fields are: a state stored under other settings of another shape (a limiter changed
-- between restarts on the same key-prefix) is not read as this one.
local shape = ((capacity > 0) and 1 or 0) + (lease_key and 2 or 0) + ((counters and window_count > 0) and 4 or 0)
	+ 8 * window_count
local format = '<' .. string.rep('d', #fields + 1)
local NONE = 0 / 0 -- a field not set: NaN, the one number unequal to itself
local h = {}
local dirty = false

-- Reads the state; whether there is one.
local function load()
	local stored = redis.call('GET', state_key)
	if not stored or #stored ~= 8 * (#fields + 1) then
		return false
	end
	local values = { struct.unpack(format, stored) }
	if values[1] ~= shape then
		return false
	end
	for i = 1, #fields do
		local value = values[i + 1]
		if value == value then
			h[fields[i]] = value
		end
	end
	return true
end

local function encode()
	local values = { shape }
	for i = 1, #fields do
		local value = h[fields[i]]
		if value == nil then
			value = NONE
		end
		values[i + 1] = value
	end
	return struct.pack(format, unpack(values))
end

local function put(field, value)
	h[field] = value
	dirty = true
end

-- Counter windows (WindowCounter.java): start of the current window, counts of the previous and
-- the current one, the latest admission. Defined only when used, as every function here: each
-- definition costs a closure per call.
local counter_window, window_start, previous_count_at
if counters and window_count > 0 then
	counter_window = function(i)
		return h['start:' .. i] or now, h['previous:' .. i] or 0, h['current:' .. i] or 0, h['admitted:' .. i] or -1
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
end

-- Expiry: each key lives exactly as long as it differs from a new key's state.

local function expire(key, horizon)
	if horizon > now then
		redis.call('PEXPIRE', key, cdiv(horizon - now, 1000))
	else
		redis.call('DEL', key)
	end
end

-- Writes the state and sets every key's expiry; windows_changed: whether the exact windows'
-- newest entries may have changed (else their keys keep their expiry).
local function finish(windows_changed)
	local horizon = now
	if capacity > 0 and h['tokens'] then
		horizon = math.max(horizon, bucket_available_at(h['tokens'], h['updated'], h['updated'], capacity))
	end
	for i = 1, window_count do
		local period = periods[i]
		if counters then
			local start, previous, current = counter_window(i)
			if current > 0 then
				horizon = math.max(horizon, start + 2 * period)
			elseif previous > 0 then
				horizon = math.max(horizon, start + period)
			end
		elseif (h['held:' .. i] or 0) > 0 then
			local until_empty = h['latest:' .. i] + period
			if until_empty <= now then
				-- every entry has left the window
				put('held:' .. i, 0)
				put('heavy:' .. i, 0)
				put('oldest:' .. i, nil)
			end
			if windows_changed or until_empty <= now then
				expire(KEYS[1 + i], until_empty)
			end
			horizon = math.max(horizon, until_empty)
		end
	end
	if lease_key then
		local newest = redis.call('ZRANGE', lease_key, -1, -1, 'WITHSCORES')
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
	redis.call('SET', state_key, encode(), 'PX', cdiv(horizon - now, 1000))
end

-- Returns a lease, if it is still held: used, it updates the typical hold.
local return_lease
if lease_key then
	return_lease = function(sequence, used)
		local start = redis.call('ZSCORE', lease_key, sequence)
		if not start then
			return
		end
		redis.call('ZREM', lease_key, sequence)
		if used then
			local held = math.max(0, now - tonumber(start))
			local typical = h['hold'] or 0
			if typical == 0 then
				put('hold', math.max(1, held))
			else
				local step = (held - typical) / 8
				step = (step >= 0) and math.floor(step) or math.ceil(step)
				put('hold', math.max(1, typical + step))
			end
		end
	end
end
