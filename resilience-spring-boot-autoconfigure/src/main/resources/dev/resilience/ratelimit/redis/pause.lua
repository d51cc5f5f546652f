-- Pauses one key (SPEC §10): until the server's clock reaches now + the pause, unless the pause
-- in force ends no earlier (KeyPause.extend): a longer pause extends it, a shorter one never
-- shortens it. The decision scripts of a limiter that pauses read it first (decide_inputs.lua).
--
-- KEYS[1] the key's pause, beside its state (same hash tag): struct.pack'ed doubles, when it ends
--         and how long it was, in integer microseconds of the server's clock (exact below 2^53);
--         it expires when the pause ends, to the millisecond rounded up
-- ARGV    in decimal (ScriptArguments.pause): the pause in whole microseconds, and the server time
--         after which the caller has given up, 0 for none
-- Replies 1 when the pause was stored, 0 when the pause in force ends no earlier, -1 when the
-- deadline has passed: the caller was told the pause failed, and a pause stored now would begin
-- late.
local length, deadline = tonumber(ARGV[1]), tonumber(ARGV[2])
local clock = redis.call('TIME')
local now = clock[1] * 1000000 + clock[2]
if deadline > 0 and now > deadline then
	return { -1 }
end
local ends = now + length

local stored = redis.call('GET', KEYS[1])
if stored and #stored == 16 and struct.unpack('<d', stored) >= ends then
	return { 0 }
end
-- the milliseconds of the pause, rounded up, exactly (helpers.lua's cdiv)
local c = length - 1
redis.call('SET', KEYS[1], struct.pack('<dd', ends, length), 'PX', string.format('%d', (c - c % 1000) / 1000 + 1))
return { 1 }
