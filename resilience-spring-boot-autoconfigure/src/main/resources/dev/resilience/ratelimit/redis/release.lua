-- Returns a call's concurrency permit (its lease), if it still holds one, and learns from how
-- long it was held.
local sequence = ARGV[2] -- the call's number in decimal, its lease's member as it is

if load() then
	return_lease(sequence, true)
	finish(false)
elseif lease_key then
	-- the state evicted (or expired with the lease): the permit is returned all the same
	redis.call('ZREM', lease_key, sequence)
end
return { 1 }
