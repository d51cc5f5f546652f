-- The inputs of a decision, shared by decide.lua, decide_bucket.lua and decide_window.lua:
-- RedisScriptRunner prepends this file to each, after helpers.lua (and state.lua). Their slots are
-- ScriptArguments.DecideInput's. A decision the caller gave up on replies { -1, now }.
local cost = ARGV[CALL] + 0
local max_wait = ARGV[CALL + 1] + 0
local deadline = ARGV[CALL + 2] + 0 -- the caller gives up after this server time; 0: never
local commit = ARGV[CALL + 3] == '1' -- else inspect

if deadline > 0 and now > deadline then
	-- The caller gave up on this call before it got here (a frozen or slow server): deciding now
	-- would take a permit nobody uses.
	return { -1, now }
end
