-- An exact window's entries, shared by decide.lua, decide_window.lua and give_back.lua:
-- RedisScriptRunner prepends this file to each, after helpers.lua (and state.lua). One entry per
-- admitted call, in the window's sorted set, scored by its time; its member is packed doubles:
-- the time, the call's sequence number (no two entries alike, even at one time) and, when it is
-- more than 1, the cost. The time is in the member too so that reading an entry needs no
-- WITHSCORES: Redis would write the score in decimal and the script parse it again, which cost
-- more than the read itself.
local function entry(at, sequence, cost)
	if cost == 1 then
		return struct.pack('<dd', at, sequence)
	end
	return struct.pack('<ddd', at, sequence, cost)
end

local function entry_time(member)
	return (struct.unpack('<d', member))
end

local function entry_cost(member)
	if #member == 16 then
		return 1
	end
	local _, _, cost = struct.unpack('<ddd', member)
	return cost
end

local function cost_of(entries)
	local total = 0
	for j = 1, #entries do
		total = total + entry_cost(entries[j])
	end
	return total
end
