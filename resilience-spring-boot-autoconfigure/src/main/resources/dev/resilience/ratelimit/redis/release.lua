-- Returns a call's concurrency permit (its lease), if it still holds one, and learns from how
-- long it was held, unless it is returned late (sent again after Redis failed it).
local sequence = ARGV[2] -- the call's number in decimal, its lease's member as it is
local started = tonumber(ARGV[3]) -- when the call was admitted: its lease's score
local learned = ARGV[4] == '1'
-- the limiter's typical hold as this instance knows it (microseconds, 0 unknown): a key's own is
-- deleted with its state once the key is back to new, and a new state goes on from it
local known_hold = tonumber(ARGV[5])

if load() then
	if not h[HOLD] and known_hold > 0 then
		h[HOLD] = known_hold
	end
	return_lease(sequence, learned, started)
	finish(false)
elseif lease_key then
	-- the state evicted (or expired with the lease): the permit is returned all the same
	return_lease(sequence, false, started)
end
-- the key's typical hold, which the instance keeps for the limiter: finish() may have deleted it
return { 1, h[HOLD] or 0 }
