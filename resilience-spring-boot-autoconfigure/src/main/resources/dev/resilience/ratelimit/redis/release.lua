-- Returns a call's concurrency permit (its lease), if it still holds one, and learns from how
-- long it was held.
local sequence = ARGV[CALL] -- the call's number, its lease's member

if load() then
	return_lease(sequence, true)
	finish(false)
end
return { 1 }
