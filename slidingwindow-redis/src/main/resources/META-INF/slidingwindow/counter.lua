-- slidingwindow windowed counter: adds to and sums the buckets of one id.
--
-- Buckets of width `interval`; b(t) = floor(t / interval). At time t the counter covers buckets
-- b(t) - size + 1 .. b(t), that is the span [(b(t) - size + 1) * interval, t]. The state is one
-- HASH with two fields per non-empty bucket: 's<b>' the sum of the amounts added in bucket b, 'c<b>'
-- how many adds. Every call reads the whole hash (HGETALL) and deletes the buckets that have left:
-- O(size) work, fine because size is small (at most 1024). The key gets PEXPIRE ARGV[6] on every
-- add. Numbers are Lua doubles: sums are exact while they stay below 2^53 in magnitude.
--
-- KEYS[1]  the HASH of the id
-- ARGV[1]  the amount to add (an integer), ignored unless ARGV[2] is 'add'
-- ARGV[2]  'add' to add ARGV[1] as one event in bucket b(now) first, 'get' to only read
-- ARGV[3]  now in microseconds, or the empty string to read the server's TIME
-- ARGV[4]  size: the number of buckets covered
-- ARGV[5]  interval: the width of a bucket in microseconds
-- ARGV[6]  expiry in milliseconds: size * interval + interval, rounded up
--
-- Returns  {sum, count, now (microseconds)} over the covered buckets, after the add.

local key = KEYS[1]
local now
if ARGV[3] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[3])
end
local size = tonumber(ARGV[4])
local interval = tonumber(ARGV[5])
local current = math.floor(now / interval)
local oldest = current - size + 1

if ARGV[2] == 'add' then
  local b = string.format('%.0f', current)
  redis.call('HINCRBY', key, 's' .. b, ARGV[1])
  redis.call('HINCRBY', key, 'c' .. b, 1)
  redis.call('PEXPIRE', key, ARGV[6])
end

local fields = redis.call('HGETALL', key)
local sum, count, gone = 0, 0, {}
for i = 1, #fields, 2 do
  local field = fields[i]
  local bucket = tonumber(string.sub(field, 2))
  if bucket < oldest then
    gone[#gone + 1] = field
  elseif bucket <= current then
    if string.sub(field, 1, 1) == 's' then
      sum = sum + tonumber(fields[i + 1])
    else
      count = count + tonumber(fields[i + 1])
    end
  end
end
if #gone > 0 then
  redis.call('HDEL', key, unpack(gone))
end
return {sum, count, now}
