-- Gives a call back, as if it had never been made: the caller gave up on it, or did not use it.
-- The bucket is restored exactly when nobody took from it since (its version is the one the call
-- left); else the call's tokens go back, up to the room the bucket had at its fullest since.
-- Window entries and a lease of the call are removed; a counter window is restored when the call
-- was its latest admission, else its count is lowered.
local cost = tonumber(ARGV[CALL])
local sequence = tonumber(ARGV[CALL + 1]) -- the call's number, in its entries and lease
local at = tonumber(ARGV[CALL + 2]) -- the time the call was admitted at
local version_after = tonumber(ARGV[CALL + 3]) -- the bucket after the call
local tokens_after = tonumber(ARGV[CALL + 4])
local updated_after = tonumber(ARGV[CALL + 5])
local tokens_before = tonumber(ARGV[CALL + 6]) -- the bucket before the call
local updated_before = tonumber(ARGV[CALL + 7])
local version_before = tonumber(ARGV[CALL + 8])

if not load() then
	return { 1 } -- everything expired: the key is as new, nothing to give back
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

if capacity > 0 and h['tokens'] then
	if h['version'] == version_after then
		-- nobody took from the bucket since: restore it exactly
		put('tokens', tokens_before)
		put('updated', updated_before)
		put('version', version_before)
	else
		local tokens, updated = refill(h['tokens'], h['updated'], now)
		local fullest = math.min(capacity, tokens_after + most_earned_between(updated_after, math.max(now, updated)))
		local returned = math.min(cost, capacity - fullest)
		if returned > 0 then
			put('tokens', math.min(capacity, tokens + returned))
			put('updated', updated)
			put('version', h['version'] + 1)
		end
	end
end
for i = 1, window_count do
	local period = periods[i]
	if counters then
		if sequence == h['undo:' .. i] then
			put('start:' .. i, h['undo-start:' .. i])
			put('previous:' .. i, h['undo-previous:' .. i])
			put('current:' .. i, h['undo-current:' .. i])
			put('admitted:' .. i, h['undo-admitted:' .. i])
			put('undo:' .. i, -1)
		else
			local start, previous, current = counter_window(i)
			if at >= start and at - start < period then
				put('current:' .. i, math.max(0, current - cost))
			elseif at < start and start - at <= period then
				put('previous:' .. i, math.max(0, previous - cost))
			end
			local undo = h['undo:' .. i] or -1
			if undo >= 0 and sequence < undo then
				-- also from the window the latest admission would restore
				local before = h['undo-start:' .. i]
				if at >= before and at - before < period then
					put('undo-current:' .. i, math.max(0, h['undo-current:' .. i] - cost))
				elseif at < before and before - at <= period then
					put('undo-previous:' .. i, math.max(0, h['undo-previous:' .. i] - cost))
				end
			end
		end
	elseif redis.call('ZREM', KEYS[1 + i], string.format('%d:%d', sequence, cost)) == 1 then
		put('held:' .. i, h['held:' .. i] - cost)
		if cost > 1 then
			put('heavy:' .. i, h['heavy:' .. i] - (cost - 1))
		end
		if at == h['latest:' .. i] then
			local latest = redis.call('ZRANGE', KEYS[1 + i], -1, -1, 'WITHSCORES')
			put('latest:' .. i, (#latest > 0) and tonumber(latest[2]) or -1)
		end
		if at == h['oldest:' .. i] then
			put('oldest:' .. i, nil) -- read when next asked
		end
	end
end
if lease_key then
	return_lease(sequence, false)
end
finish(true)
return { 1 }
