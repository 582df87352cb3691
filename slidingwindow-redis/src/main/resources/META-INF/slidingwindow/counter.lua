-- slidingwindow windowed counter: adds to and sums the buckets of one id.
--
-- Buckets of width `interval`; b(t) = floor(t / interval). At time t the counter covers buckets
-- b(t) - size + 1 .. b(t), that is the span [(b(t) - size + 1) * interval, t]. The state is one
-- HASH with two fields per non-empty bucket: 's<b>' the sum of the amounts added in bucket b, 'c<b>'
-- how many adds. Every call reads the whole hash (HGETALL) and, unless it is a 'get' on client time,
-- deletes the buckets that have left: O(size) work, fine because size is small (at most 1024). The
-- key gets PEXPIRE ARGV[6] on every add.
--
-- Time. On the server's clock (ARGV[3] empty) now is TIME, and the hash also keeps a field 't', the
-- latest time the id has seen: a smaller TIME counts as 't' (a clock that goes back, say after a
-- failover, means no time passed), as in the in-process counters. A call writes 't' only when it
-- moves it on, and a 'get' creates no key. On client time (ARGV[3] a number) now is ARGV[3] as it
-- is: the Java side never lets it go back, and the key belongs to one counters instance (its name
-- ends in that instance's run id), so no other clock, and no earlier process, has written to it.
-- There is then no 't', and a 'get' writes nothing.
--
-- Amounts are non-negative (the Java side checks). A bucket's sum is a Redis integer that saturates
-- at 2^63 - 1 (HINCRBY would overflow: the field is set to that maximum instead). The window's sum
-- is added up exactly in two parts, because Lua numbers are doubles: each field's decimal digits
-- are split into its last nine digits and the rest, and the reply carries the sum as
-- high * 10^9 + low with 0 <= low < 10^9, both exact (at most 1024 buckets keep each part below
-- 2^53); the Java side saturates it at 2^63 - 1. Counts are added as doubles: exact below 2^53.
--
-- KEYS[1]  the HASH of the id
-- ARGV[1]  the amount to add (a non-negative integer), ignored unless ARGV[2] is 'add'
-- ARGV[2]  'add' to add ARGV[1] as one event in bucket b(now) first, 'get' to only read
-- ARGV[3]  now in microseconds (client time), or the empty string to read the server's TIME
-- ARGV[4]  size: the number of buckets covered
-- ARGV[5]  interval: the width of a bucket in microseconds
-- ARGV[6]  expiry in milliseconds: size * interval + interval, rounded up
--
-- Returns  {sum high, sum low, count, now (microseconds)} over the covered buckets, after the add.

local key = KEYS[1]
local add = ARGV[2] == 'add'
local now
local writes = add
if ARGV[3] == '' then
  writes = true
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
  local latest = tonumber(redis.call('HGET', key, 't'))
  if latest and latest >= now then
    now = latest
  elseif latest or add then
    redis.call('HSET', key, 't', string.format('%.0f', now))
  end
else
  now = tonumber(ARGV[3])
end
local size = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local current = math.floor(now / interval)
local oldest = current - size + 1

if add then
  local b = string.format('%.0f', current)
  local added = redis.pcall('HINCRBY', key, 's' .. b, ARGV[1])
  if type(added) == 'table' and added.err then
    if not string.find(added.err, 'overflow') then
      return added
    end
    redis.call('HSET', key, 's' .. b, '9223372036854775807')
  end
  redis.call('HINCRBY', key, 'c' .. b, 1)
  redis.call('PEXPIRE', key, ARGV[6])
end

local fields = redis.call('HGETALL', key)
local high, low, count, gone = 0, 0, 0, {}
for i = 1, #fields, 2 do
  local field = fields[i]
  local kind = string.sub(field, 1, 1)
  if kind ~= 't' then
    local bucket = tonumber(string.sub(field, 2))
    if bucket < oldest then
      gone[#gone + 1] = field
    elseif bucket <= current then
      local value = fields[i + 1]
      if kind == 'c' then
        count = count + tonumber(value)
      else
        local sign = 1
        if string.sub(value, 1, 1) == '-' then
          sign, value = -1, string.sub(value, 2)
        end
        local n = #value
        if n > 9 then
          high = high + sign * tonumber(string.sub(value, 1, n - 9))
          value = string.sub(value, n - 8)
        end
        low = low + sign * tonumber(value)
      end
    end
  end
end
if writes and #gone > 0 then
  redis.call('HDEL', key, unpack(gone))
end
local carry = math.floor(low / 1000000000)
return {high + carry, low - carry * 1000000000, count, now}
