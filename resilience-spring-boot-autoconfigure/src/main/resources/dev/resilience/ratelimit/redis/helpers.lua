-- Shared by every script: RedisScriptRunner prepends this file to each when it loads it (and
-- state.lua after it to decide.lua, give_back.lua and release.lua). One rate limiter, one user key;
-- the rules mirror dev.resilience.ratelimit.store.LimiterAlgorithm.
--
-- Times are integer microseconds of the server's clock (TIME): about 1.7e15 today, exact in a Lua
-- number (a double) below 2^53. ScriptArguments checks at startup that every product formed here
-- (capacity * refill period, limit * period) stays below 2^53 too. A number for redis.call is made
-- a string with string.format('%d'), and a constant is written as one ('0'): Redis would write a Lua
-- number itself with '%.17g' (exact for these integers too), several times as slow; Lua's own
-- tostring and '..' keep only 14 digits.
--
-- Speed: Redis runs one script at a time, so the server's time per call caps a hot key for every
-- instance together. Per call, each redis.call costs about as much as the arithmetic of a
-- decision (and INFO commandstats counts it twice: in its own line and in the script's), and each
-- function defined costs a closure; so this file defines only what every script needs, and a
-- limiter with a token bucket alone decides by decide_bucket.lua, one with exact windows and no
-- concurrency permits by decide_window.lua, both without state.lua.
--
-- ARGV[1] holds the limiter's settings (ScriptArguments.Setting), the same for every call, then
-- each window's limit and period (window i's at byte WINDOWS + 16i), and ARGV[2] the call's own inputs,
-- named by decide_inputs.lua for the three decide scripts and at the top of give_back.lua; each is
-- little-endian doubles, struct.pack's '<d', exact for these integers. Redis makes every argument a
-- Lua string, and a number written in decimal is parsed again by each script: one string of
-- doubles, unpacked in one call, costs the server about half of what a dozen decimal
-- arguments did. The concurrency settings are read by state.lua, for the scripts that need them.
-- A decide script's reply is packed the same way (ScriptArguments.Reply): Redis converts each
-- number of a reply table on its own, and the 14 of a bucket's reply cost the server a tenth of
-- the decision (about 76,300 instructions in all with a table, 71,300 packed).
local capacity, refill_tokens, refill_period, interval, counters, max_concurrent, lease_timeout, window_count =
	struct.unpack('<dddddddd', ARGV[1])
interval = interval == 1 -- whole periods at once, else greedily
counters = counters == 1 -- windows as counters, else exact logs
local WINDOWS = 49 -- after the eight settings: struct.unpack('<dd', ARGV[1], WINDOWS + 16 * i) is window i's
-- Part of the shape of a state with exact windows (state.lua, decide_window.lua): their entries'
-- members are packed, scored by minus their time (entries.lua). A state written when they were
-- decimal, scored by their time, is of another shape, and its windows' entries are forgotten with
-- it instead of misread.
local PACKED_ENTRIES = 4096

local clock = redis.call('TIME')
local now = clock[1] * 1000000 + clock[2]

-- floor(a / b) and ceil(a / b) for integers 0 <= a < 2^53, 0 < b < 2^53, exact: a / b as a double
-- is within (a / b) * 2^-53 < 1 / b of the true quotient, and a quotient that is not whole lies at
-- least 1 / b from the nearest integer, so the floor Lua's '%' takes (a % b is a - floor(a / b) * b)
-- is the true one, and a - a % b, b times it and at most a, is exact too. The ceiling is the floor
-- of (a - 1) / b, plus one: b times the ceiling itself may pass 2^53. (A negative a may pass 2^53
-- in the same way: no caller divides one.) No function call and no comparison inside: in
-- a decision's arithmetic, these two ran more often than anything else.
local function fdiv(a, b)
	return (a - a % b) / b
end

local function cdiv(a, b)
	local c = a - 1
	return (c - c % b) / b + 1
end

-- Token bucket (TokenBucket.java): the tokens at a time, and the time they are counted from.
local function refill(tokens, updated, at)
	if tokens > capacity then
		tokens = capacity -- the capacity was lowered at run time
	end
	local elapsed = at - updated
	local missing = capacity - tokens
	if elapsed <= 0 then
		return tokens, updated
	end
	if missing <= 0 then
		if interval then
			return tokens, updated + fdiv(elapsed, refill_period) * refill_period
		end
		return tokens, at
	end
	if interval then
		local periods_passed = fdiv(elapsed, refill_period)
		if periods_passed == 0 then
			return tokens, updated
		end
		if periods_passed >= cdiv(missing, refill_tokens) then
			return capacity, updated + periods_passed * refill_period
		end
		return tokens + periods_passed * refill_tokens, updated + periods_passed * refill_period
	end
	if elapsed >= cdiv(missing * refill_period, refill_tokens) then
		return capacity, at
	end
	local added = fdiv(elapsed * refill_tokens, refill_period)
	if added == 0 then
		return tokens, updated
	end
	-- keep the fraction of the next token already earned
	return tokens + added, updated + cdiv(added * refill_period, refill_tokens)
end

-- the earliest time, not before not_before, at which the bucket holds c tokens
local function bucket_available_at(tokens, updated, not_before, c)
	local rt, ru = refill(tokens, updated, not_before)
	local earliest = math.max(not_before, ru)
	local missing = c - rt
	if missing <= 0 then
		return earliest
	end
	local wait
	if interval then
		wait = cdiv(missing, refill_tokens) * refill_period
	else
		wait = cdiv(missing * refill_period, refill_tokens)
	end
	return math.max(earliest, ru + wait)
end
