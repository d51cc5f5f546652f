-- Decides a call of a limiter that has a token bucket and nothing else, as decide.lua would
-- (same arguments, same reply, same state), in fewer steps: no state.lua, no sequence, no
-- windows or leases to look at. RedisScriptRunner prepends helpers.lua; ScriptArguments picks this
-- script for such a limiter.
--
-- KEYS[1]   the state: struct.pack'ed doubles, the shape 1 (a token bucket alone) then tokens,
--           updated and version, as state.lua writes it; a state of another shape is taken for none.
-- Replies ScriptArguments.ReplyField's slots, then the bucket's remaining and microseconds until
-- more, packed as the arguments are; -1 and now when the deadline has passed.
-- KEYS[2]   with pause, the key's pause, read first (decide_inputs.lua).
-- Inputs: cost, max_wait, deadline, commit, pause (decide_inputs.lua, prepended).

-- the bucket before the call
local before_tokens, before_updated, before_version = capacity, now, 0
local stored = redis.call('GET', KEYS[1])
if stored and #stored == 32 then
	local shape, tokens, updated, version = struct.unpack('<dddd', stored)
	if shape == 1 and tokens == tokens then
		before_tokens, before_updated, before_version = tokens, updated, version
	end
end

local tokens, updated = refill(before_tokens, before_updated, now)
local at = now
if updated > now or tokens < cost then
	at = bucket_available_at(tokens, updated, now, cost)
end
local status, wait, retry_after, seen_at = 1, at - now, 0, now
if wait > max_wait then
	status, wait, retry_after = 0, 0, wait
elseif not commit then
	wait = 0
else
	if at ~= now then
		tokens, updated = refill(before_tokens, before_updated, at)
	end
	tokens = tokens - cost
	seen_at = at
	-- the state lives exactly as long as it differs from a new key's
	local horizon = bucket_available_at(tokens, updated, updated, capacity)
	if horizon > now then
		redis.call('SET', KEYS[1], struct.pack('<dddd', 1, tokens, updated, before_version + 1), 'PX',
			string.format('%d', cdiv(horizon - now, 1000)))
	else
		redis.call('DEL', KEYS[1])
	end
end

-- the quota at seen_at
local quota_tokens, quota_updated = refill(tokens, updated, seen_at)
local until_more = 0
if quota_tokens < capacity then
	until_more = bucket_available_at(quota_tokens, quota_updated, seen_at, quota_tokens + 1) - seen_at
end
return struct.pack('<dddddddddddddd', status, now, wait, retry_after, 0, 0, 0, before_version, before_tokens,
	before_updated, tokens, updated, quota_tokens, until_more)
