-- BENCHMARK SCRIPT, not used by the library: what a request of the limiter script opening a bucket
-- costs Redis at the least in today's layout (a LIST per limit, the header at element 0): the same
-- commands and the same stored header as limiter.lua's one-limit path, with every check, the
-- figures and the trimming left out. Same arguments as limiter.lua for one sliding limit.
local call, tonumber, floor, pack, unpack = redis.call, tonumber, math.floor, struct.pack, struct.unpack
local format = string.format
local HEADER = '<dddddd'
local ttl = tonumber(ARGV[2])
local N, W, P = tonumber(ARGV[4]), tonumber(ARGV[5]), tonumber(ARGV[6])
local EXP, STRETCH = format('%d', ttl + math.ceil(ttl / 4)), ttl * 250
local out, on, server_now = {}, 0, nil
for r = 1, #KEYS do
  local a = 7 + 2 * (r - 1)
  local now
  if ARGV[a + 1] == '' then
    if server_now == nil then
      local time = call('TIME')
      server_now = time[1] * 1000000 + time[2]
    end
    now = server_now
  else
    now = tonumber(ARGV[a + 1])
  end
  local permits = floor(tonumber(ARGV[a]) / 2)
  local key = KEYS[r]
  local h = redis.pcall('LINDEX', key, '0')
  local ref, base, first, tail, total, prev = false, 0, false, false, 0, 0
  if h then
    ref, base, first, tail, total, prev = unpack(HEADER, h)
  end
  local allowed = total - base + permits <= N
  if allowed then
    local bucket = floor(now / P)
    if not tail then
      call('RPUSH', key, pack(HEADER, bucket, base, bucket, bucket, permits, 0))
      call('PEXPIRE', key, EXP)
    elseif bucket <= tail then
      call('LSET', key, '0', pack(HEADER, ref, base, first, tail, total + permits, prev))
    else
      if first == tail then
        ref = tail
      end
      call('RPUSH', key, format('%d', tail - ref), format('%d', total))
      call('LSET', key, '0', pack(HEADER, ref, base, first, bucket, total + permits, total))
      if floor(bucket * P / STRETCH) ~= floor(tail * P / STRETCH) then
        call('PEXPIRE', key, EXP)
      end
    end
  end
  out[on + 1], out[on + 2], out[on + 3] = allowed and 1 or 0, now, 0
  on = on + 3
end
return out
