-- An exact window's entries, shared by decide.lua, decide_window.lua and give_back.lua:
-- RedisScriptRunner prepends this file to each, after helpers.lua (and state.lua). One entry per
-- admitted call in the window's sorted set; its member is packed doubles: the time, the call's
-- sequence number (no two entries alike, even at one time) and, when it is more than 1, the cost.
-- The time is in the member so that reading an entry needs no WITHSCORES: Redis would write the
-- score in decimal and the script parse it again, which cost more than the read itself.
--
-- An entry's score is minus its time: the newest entry has the lowest score, the oldest the
-- highest. Redis keeps a small sorted set as one list (a listpack) and finds where a new member
-- goes by walking it from its head: scored by time, each new entry walked past every entry the
-- window held. So ranks count from the newest (0, 1, ...) and from the oldest (-1, -2, ...), and
-- the entries made at or before a time t are those scored from -t to +inf.
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

-- Removes a window's entries made at or before cutoff, which have left it; returns the cost they
-- held, how many there were, and the time of the oldest entry left when that is known (nil when
-- not, or when none is left). Most often one entry leaves: the entry after the oldest tells so,
-- and is the oldest then, without formatting a score (and, when every entry costs 1 and the
-- oldest is known to have left, without reading the oldest); more are removed by score.
-- heavy: whether an entry may cost more than 1; left: whether the oldest is known to have left.
local function prune_entries(key, cutoff, heavy, left)
	local tail, n
	if left and not heavy then
		tail = redis.call('ZRANGE', key, '-2', '-2') -- the second oldest
		n = #tail + 1
		if n == 1 or entry_time(tail[1]) > cutoff then
			-- what was removed: none, should the set have gone meanwhile (evicted)
			local removed = redis.call('ZREMRANGEBYRANK', key, '-1', '-1')
			return removed, removed, (n == 2) and entry_time(tail[1]) or nil
		end
	else
		tail = redis.call('ZRANGE', key, '-2', '-1') -- the second oldest, then the oldest
		n = #tail
		if n == 0 then
			return 0, 0, nil
		end
		local oldest = entry_time(tail[n])
		if oldest > cutoff then
			return 0, 0, oldest
		end
		if n == 1 or entry_time(tail[1]) > cutoff then
			redis.call('ZREMRANGEBYRANK', key, '-1', '-1')
			return entry_cost(tail[n]), 1, (n == 2) and entry_time(tail[1]) or nil
		end
	end
	local from = string.format('%d', -cutoff)
	if not heavy then
		local removed = redis.call('ZREMRANGEBYSCORE', key, from, '+inf')
		return removed, removed, nil
	end
	local gone = redis.call('ZRANGEBYSCORE', key, from, '+inf')
	redis.call('ZREMRANGEBYSCORE', key, from, '+inf')
	return cost_of(gone), #gone, nil
end
