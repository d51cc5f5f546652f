-- The inputs of a decision, shared by decide.lua, decide_bucket.lua and decide_window.lua:
-- RedisScriptRunner prepends this file to each, after helpers.lua (and state.lua). Their slots are
-- ScriptArguments.DecideInput's. A decision the caller gave up on replies -1 and now.
-- deadline: the caller gives up after this server time, 0 never; commit: 1 decide, 0 inspect;
-- pause: 1 when the limiter pauses on throttle, and KEYS[#KEYS] is then the key's pause;
-- known_hold: how long the limiter's permits are typically held, as this instance last learned it
-- from a permit's return (microseconds, 0 unknown), for a key whose state (and its own typical
-- hold) was deleted once back to new
local cost, max_wait, deadline, commit, pause, known_hold = struct.unpack('<dddddd', ARGV[2])
commit = commit == 1

if deadline > 0 and now > deadline then
	-- The caller gave up on this call before it got here (a frozen or slow server): deciding now
	-- would take a permit nobody uses.
	return struct.pack('<dd', -1, now)
end

if pause == 1 then
	-- The key's pause (SPEC §10), as pause.lua writes it: when it ends and how long it was. While it
	-- holds, the decision reads nothing else, takes and writes nothing, and replies status 2, now,
	-- the rest of the pause and its length (ScriptArguments.PausedReplyField). Only a limiter that
	-- pauses sends the key and pays for this GET.
	local paused = redis.call('GET', KEYS[#KEYS])
	if paused and #paused == 16 then
		local ends, length = struct.unpack('<dd', paused)
		if ends > now then
			return struct.pack('<dddd', 2, now, ends - now, length)
		end
	end
end
