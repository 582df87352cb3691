-- slidingwindow limiter: checks and records every limit of one id atomically.
--
-- Algorithm (the same as the in-process limiter). Bucket b(t) = floor(t / p). At time t a limit
-- counts the buckets b(t - W + 1) .. b(t); a request is granted iff count + permits <= N for
-- every limit, and then its permits are added to bucket b(t) of every limit. Only granted permits
-- are recorded unless refused attempts count too (a bucket then saturates at N).
--
-- Storage. Each limit is one LIST: element 0 is a reference bucket (the first run's bucket when
-- the list was created), element 1 a base, then one (bucket - reference, total) pair per non-empty
-- bucket, oldest first, where total is the running sum of every permit ever recorded up to and
-- including that bucket, and the base is the total of the runs already removed. Storing buckets as
-- small offsets keeps a run at about 7 bytes. The window's count is tail total - base, a bucket's
-- count is its total minus the previous one, and a grant writes one element (RPUSH a run, or LSET
-- the newest total). Runs leave from the head (LSET and LTRIM that keep the reference and make the
-- last gone run's total the base) and arrive at the tail, so every run is pushed once and popped
-- once: amortised O(1) work per call, never a loop over the window's buckets. At most
-- min(N, ceil(W / p) + 1) runs are stored (ceil(W / p) + 1 when refused attempts count). An empty
-- limit has no key; a list whose newest run has left is deleted at once. A key gets PEXPIRE
-- ARGV[4] whenever a run is pushed: a later grant into that same run cannot need the key for
-- longer, since the run leaves at most W + p after it began.

-- Time only moves forward: a time before the newest run's bucket is recorded into that run, and
-- counting from an earlier time only keeps more runs, so a clock that steps back (a failover to a
-- replica whose clock is behind) never lets more through.
--
-- Numbers are Lua doubles: every time, bucket and total must stay below 2^53 (microseconds since
-- 1970 are about 1.7e15; totals restart whenever a key expires).
--
-- KEYS[i]   (i = 1 .. L) the LIST of limit i; all keys share one hash tag
-- ARGV[1]   permits requested, an integer in 1 .. min(N)
-- ARGV[2]   flags, a sum of: 1 = count refused attempts too, 2 = return the decision's figures
-- ARGV[3]   now in microseconds, or the empty string to read the server's TIME
-- ARGV[4]   expiry of a key in milliseconds: the longest window plus its bucket, rounded up
-- ARGV[5 + 3(i-1)], ARGV[6 + 3(i-1)], ARGV[7 + 3(i-1)]   N, W and p of limit i; W, p in microseconds
--
-- Returns  without flag 2: {allowed (1 or 0), now (microseconds), hold}, where hold is how long
--          from now every request for this id stays refused if nothing else is recorded: the
--          longest time any limit stays full (until its oldest run leaves);
--          with flag 2: {allowed, now, remaining, retryAfter (microseconds), resetAfter
--          (microseconds), binding limit (1-based), hold}, the figures of the binding limit: on a
--          grant the one with the fewest permits left, on a refusal the one that keeps the request
--          waiting longest (the first such limit on ties); hold is then how long the binding limit
--          stays full, during which these figures only count down.
--          hold is 0 on a grant, when no limit (or not the binding one) is full, and when refused
--          attempts count (a refusal then changes the stored runs).

local permits = tonumber(ARGV[1])
local flags = tonumber(ARGV[2])
local count_refused = flags % 2 == 1
local figures = flags >= 2
local now
if ARGV[3] == '' then
  local time = redis.call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[3])
end
local ttl = ARGV[4]

local function str(x)
  return string.format('%.0f', x)
end

local n = #KEYS
local limit, window, precision = {}, {}, {}
local ref, base, tail_bucket, tail_total, prev_total, sums, first = {}, {}, {}, {}, {}, {}, {}
local allowed = true
for i = 1, n do
  local key = KEYS[i]
  local a = 5 + 3 * (i - 1)
  limit[i], window[i], precision[i] = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
  local oldest = math.floor((now - window[i] + 1) / precision[i])
  local head = redis.call('LRANGE', key, 0, 2)
  local tail = {}
  if head[1] ~= nil then
    ref[i] = tonumber(head[1])
    -- With one run, element -3 is the base: the total before the newest run either way.
    tail = redis.call('LRANGE', key, -3, -1)
    if ref[i] + tonumber(tail[2]) < oldest then
      -- Even the newest run has left: the whole list goes at once, without a scan.
      redis.call('DEL', key)
      tail = {}
    end
  end
  if tail[1] == nil then
    ref[i], base[i], tail_bucket[i], tail_total[i], prev_total[i] = nil, 0, nil, 0, 0
  else
    prev_total[i], tail_bucket[i], tail_total[i] = tonumber(tail[1]), ref[i] + tonumber(tail[2]), tonumber(tail[3])
    base[i] = tonumber(head[2])
    first[i] = ref[i] + tonumber(head[3])
    if first[i] < oldest then
      -- Some runs have left, not the newest: read the head in growing chunks up to the first run
      -- that still counts, then cut them off, keeping the reference and making the last gone
      -- run's total (element 2 * gone + 1) the new base.
      local gone, last_total, from, chunk, done = 0, 0, 2, 8, false
      while not done do
        local runs = redis.call('LRANGE', key, from, from + 2 * chunk - 1)
        local j = 1
        while j < #runs do
          if ref[i] + tonumber(runs[j]) >= oldest then
            first[i] = ref[i] + tonumber(runs[j])
            done = true
            break
          end
          last_total = runs[j + 1]
          gone = gone + 1
          j = j + 2
        end
        if #runs < 2 * chunk then
          done = true -- the list ended; cannot happen while the newest run counts, but bounds the loop
        end
        from = from + 2 * chunk
        chunk = chunk * 2
      end
      redis.call('LSET', key, 2 * gone, str(ref[i]))
      redis.call('LTRIM', key, 2 * gone, -1)
      base[i] = tonumber(last_total)
    end
  end
  sums[i] = tail_total[i] - base[i]
  if sums[i] + permits > limit[i] then
    allowed = false
  end
end

if allowed or count_refused then
  for i = 1, n do
    local key = KEYS[i]
    local bucket = math.floor(now / precision[i])
    local add = permits
    if count_refused and add > limit[i] then
      add = limit[i]
    end
    if tail_bucket[i] == nil then
      redis.call('RPUSH', key, str(bucket), '0', '0', str(add))
      redis.call('PEXPIRE', key, ttl)
      ref[i], tail_bucket[i], tail_total[i] = bucket, bucket, add
    elseif tail_bucket[i] >= bucket then
      local new = tail_total[i] + add
      if count_refused and new - prev_total[i] > limit[i] then
        new = prev_total[i] + limit[i]
      end
      if new > tail_total[i] then
        redis.call('LSET', key, -1, str(new))
        tail_total[i] = new
      end
    else
      redis.call('RPUSH', key, str(bucket - ref[i]), str(tail_total[i] + add))
      redis.call('PEXPIRE', key, ttl)
      tail_bucket[i], tail_total[i] = bucket, tail_total[i] + add
    end
    sums[i] = tail_total[i] - base[i]
  end
end

-- The time at which bucket b of limit i stops being counted: (b + 1) p + W - 1.
local function leaves_at(i, b)
  return (b + 1) * precision[i] + window[i] - 1
end

-- How long limit i stays full (no permit left) if nothing else is recorded: until its oldest run
-- leaves; 0 when it is not full.
local function full_for(i)
  if sums[i] < limit[i] or first[i] == nil then
    return 0
  end
  return leaves_at(i, first[i]) - now
end

local result = allowed and 1 or 0
if not figures then
  local hold = 0
  if not allowed and not count_refused then
    for i = 1, n do
      local f = full_for(i)
      if f > hold then
        hold = f
      end
    end
  end
  return {result, now, hold}
end

local binding, retry = 1, 0
if allowed then
  local least = limit[1] - sums[1]
  for i = 2, n do
    if limit[i] - sums[i] < least then
      least = limit[i] - sums[i]
      binding = i
    end
  end
else
  for i = 1, n do
    -- Walk the runs oldest first until enough permits have left: at most `permits` runs when
    -- only grants count, since the count is then at most N.
    local excess = sums[i] - (limit[i] - permits)
    if excess > 0 then
      local from, chunk, wait = 2, 4, nil
      while wait == nil do
        local runs = redis.call('LRANGE', KEYS[i], from, from + 2 * chunk - 1)
        local j = 1
        while j < #runs do
          if tonumber(runs[j + 1]) - base[i] >= excess then
            wait = leaves_at(i, ref[i] + tonumber(runs[j])) - now
            break
          end
          j = j + 2
        end
        if #runs < 2 * chunk and wait == nil then
          return redis.error_reply('slidingwindow: inconsistent runs in ' .. KEYS[i])
        end
        from = from + 2 * chunk
        chunk = chunk * 2
      end
      if wait > retry then
        retry = wait
        binding = i
      end
    end
  end
end

local remaining = limit[binding] - sums[binding]
if remaining < 0 then
  remaining = 0
end
local reset = 0
if sums[binding] > 0 then
  reset = leaves_at(binding, tail_bucket[binding]) - now
end
local hold = 0
if not allowed and not count_refused then
  hold = full_for(binding)
end
return {result, now, remaining, retry, reset, binding, hold}
