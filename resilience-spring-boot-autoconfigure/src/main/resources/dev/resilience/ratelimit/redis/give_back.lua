-- Gives a call back, as if it had never been made: the caller gave up on it, or did not use it.
-- The bucket is restored exactly when nobody took from it since (its version is the one the call
-- left); else the call's tokens go back, up to the room the bucket had at its fullest since.
-- Window entries and a lease of the call are removed. Counter windows replay the other calls of
-- their journal (state.lua) when the call is in it, else lower the call's count.
-- The call: its cost, its number (in its entries and lease), the time it was admitted at, then
-- the bucket's version, tokens and time after it and its tokens, time and version before it.
local cost, sequence, at, version_after, tokens_after, updated_after, tokens_before, updated_before, version_before =
	struct.unpack('<ddddddddd', ARGV[2])

if not load() then
	-- expired: the key is as new, nothing to give back; or evicted: the call's permit still is
	if lease_key then
		return_lease(string.format('%d', sequence), false, at)
	end
	return { 1 }
end

-- the most tokens the bucket can have earned from one time to another
local function most_earned_between(from, to)
	if to <= from then
		return 0
	end
	if to - from >= cdiv(capacity * refill_period, refill_tokens) + refill_period then
		return capacity -- capped by the caller anyway
	end
	if interval then
		return cdiv(to - from, refill_period) * refill_tokens
	end
	return cdiv((to - from) * refill_tokens, refill_period)
end

if capacity > 0 and h[TOKENS] then
	if h[VERSION] == version_after and h[UPDATED] == updated_after then
		-- nobody took from the bucket since: restore it exactly (the time too, for a state made
		-- afresh after the call's was deleted counts its versions from 0 again)
		put(TOKENS, tokens_before)
		put(UPDATED, updated_before)
		put(VERSION, version_before)
	else
		local tokens, updated = refill(h[TOKENS], h[UPDATED], now)
		local fullest = math.min(capacity, tokens_after + most_earned_between(updated_after, math.max(now, updated)))
		local returned = math.min(cost, capacity - fullest)
		if returned > 0 then
			put(TOKENS, math.min(capacity, tokens + returned))
			put(UPDATED, updated)
			put(VERSION, h[VERSION] + 1)
		end
	end
end
-- A counter window gives back a call of the journal (state.lua) by replaying its other calls on
-- the counts before it; any other call by lowering its count where it still counts.
local journaled
for j = 1, #journal, 3 do
	if journal[j] == sequence and journal[j + 1] == at then
		journaled = j
	end
end
if journaled then
	drop_journal(journaled, 3)
end
for i = 1, window_count do
	local period = periods[i]
	if journaled then
		local c = base[i]
		for f = START, ADMITTED do
			put(c + f, h[c + BEFORE + f])
		end
		for j = 1, #journal, 3 do
			add_count(c, period, journal[j + 1], journal[j + 2])
		end
		prune_counts(c, period, now)
	elseif counters then
		-- and in the counts before the journal's first call, while it holds any: the call came before it
		for c = base[i], base[i] + ((#journal > 0) and BEFORE or 0), BEFORE do
			local start, previous, current = counts(c)
			if at >= start and at - start < period then
				put(c + CURRENT, math.max(0, current - cost))
			elseif at < start and start - at <= period then
				put(c + PREVIOUS, math.max(0, previous - cost))
			end
		end
	elseif redis.call('ZREM', KEYS[1 + i], entry(at, sequence, cost)) == 1 then
		put(base[i] + HELD, h[base[i] + HELD] - cost)
		if cost > 1 then
			put(base[i] + HEAVY, h[base[i] + HEAVY] - (cost - 1))
		end
		if at == h[base[i] + LATEST] then
			local latest = redis.call('ZRANGE', KEYS[1 + i], '0', '0') -- the newest (entries.lua)
			-- none left: -1, unless the state still counts calls whose entries Redis evicted, all
			-- made before this one, so gone one period after it
			put(base[i] + LATEST, (#latest > 0) and entry_time(latest[1]) or ((h[base[i] + HELD] > 0) and at or -1))
		end
		if at == h[base[i] + OLDEST] then
			put(base[i] + OLDEST, nil) -- read when next asked
		end
	end
end
if lease_key then
	return_lease(sequence, false, at)
end
finish(true)
return { 1 }
