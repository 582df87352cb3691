-- BENCHMARK SCRIPT, not used by the library: what a request opening a bucket would cost Redis at
-- the least in a STRING layout (a limit's closed runs as fixed records of 12 bytes, '<Id', and the
-- header after them, with the header's own offset as a seventh field): GETRANGE of the header, then
-- one write (SET with PX for a new key; SETRANGE of the header, or of the closed run and the header,
-- over the old header). No checks, no figures, no trimming. Same arguments as bare-list.lua.
local call, tonumber, floor, pack, unpack = redis.call, tonumber, math.floor, struct.pack, struct.unpack
local format = string.format
local HEADER, RUN = '<ddddddd', '<Id'
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
  local h = call('GETRANGE', key, '-56', '-1')
  local ref, base, first, tail, total, prev, at = false, 0, false, false, 0, 0, 0
  if #h == 56 then
    ref, base, first, tail, total, prev, at = unpack(HEADER, h)
  end
  local allowed = total - base + permits <= N
  if allowed then
    local bucket = floor(now / P)
    if not tail then
      call('SET', key, pack(HEADER, bucket, base, bucket, bucket, permits, 0, 0), 'PX', EXP)
    elseif bucket <= tail then
      call('SETRANGE', key, format('%d', at), pack(HEADER, ref, base, first, tail, total + permits, prev, at))
    else
      if first == tail then
        ref = tail
      end
      call('SETRANGE', key, format('%d', at), pack(RUN, tail - ref, total)
        .. pack(HEADER, ref, base, first, bucket, total + permits, total, at + 12))
      if floor(bucket * P / STRETCH) ~= floor(tail * P / STRETCH) then
        call('PEXPIRE', key, EXP)
      end
    end
  end
  out[on + 1], out[on + 2], out[on + 3] = allowed and 1 or 0, now, 0
  on = on + 3
end
return out
