-- The inputs of a decision, shared by decide.lua, decide_bucket.lua and decide_window.lua:
-- RedisScriptRunner prepends this file to each, after helpers.lua (and state.lua). Their slots are
-- ScriptArguments.DecideInput's. A decision the caller gave up on replies -1 and now.
-- deadline: the caller gives up after this server time, 0 never; commit: 1 decide, 0 inspect
local cost, max_wait, deadline, commit = struct.unpack('<dddd', ARGV[2])
commit = commit == 1

if deadline > 0 and now > deadline then
	-- The caller gave up on this call before it got here (a frozen or slow server): deciding now
	-- would take a permit nobody uses.
	return struct.pack('<dd', -1, now)
end
