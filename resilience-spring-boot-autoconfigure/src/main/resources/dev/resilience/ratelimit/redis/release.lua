-- Returns a call's concurrency permit (its lease), if it still holds one, and learns from how
-- long it was held, unless it is returned late (sent again after Redis failed it).
local sequence = ARGV[2] -- the call's number in decimal, its lease's member as it is
local started = tonumber(ARGV[3]) -- when the call was admitted: its lease's score
local learned = ARGV[4] == '1'

if load() then
	return_lease(sequence, learned, started)
	finish(false)
elseif lease_key then
	-- the state evicted (or expired with the lease): the permit is returned all the same
	return_lease(sequence, false, started)
end
return { 1 }
