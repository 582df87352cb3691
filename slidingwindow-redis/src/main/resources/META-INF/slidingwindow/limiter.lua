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
-- count is its total minus the previous one. A call reads the head (one LRANGE, which holds the
-- whole list when it has at most two runs) and else the tail (a second LRANGE), and a grant writes
-- one element (RPUSH a run, or LSET the newest total). Runs leave from the head (LSET and LTRIM that keep the reference and make the
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

local call, tonumber, floor = redis.call, tonumber, math.floor

local permits = tonumber(ARGV[1])
local flags = tonumber(ARGV[2])
local count_refused = flags % 2 == 1
local figures = flags >= 2
local now
if ARGV[3] == '' then
  local time = call('TIME')
  now = tonumber(time[1]) * 1000000 + tonumber(time[2])
else
  now = tonumber(ARGV[3])
end
local ttl = ARGV[4]

-- The state of limit i is the array L[i]; these name its fields. Numbers go to redis.call as
-- they are: Redis writes them with 17 significant digits, exact below 2^53.
local LIMIT, WINDOW, PRECISION, REF, BASE, FIRST, TAIL_BUCKET, TAIL_TOTAL, PREV_TOTAL, SUM =
  1, 2, 3, 4, 5, 6, 7, 8, 9, 10

-- The time at which bucket b of a limit stops being counted: (b + 1) p + W - 1.
local function leaves_at(l, b)
  return (b + 1) * l[PRECISION] + l[WINDOW] - 1
end

local n = #KEYS
local L = {}
local allowed = true
for i = 1, n do
  local key = KEYS[i]
  local a = 5 + 3 * (i - 1)
  local l = {tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2]), nil, 0, nil, nil, 0, 0, 0}
  L[i] = l
  local oldest = floor((now - l[WINDOW] + 1) / l[PRECISION])
  -- The reference, the base and the oldest runs: a list of at most two runs (six elements) is
  -- read whole, a longer one needs its tail too.
  local head = call('LRANGE', key, 0, 6)
  if head[1] ~= nil then
    local ref = tonumber(head[1])
    local tail = head
    local t = #head - 2 -- the index of the element before the newest run
    if #head > 6 then
      -- With one run, element -3 is the base: the total before the newest run either way.
      tail = call('LRANGE', key, -3, -1)
      t = 1
    end
    if ref + tonumber(tail[t + 1]) < oldest then
      -- Even the newest run has left: the whole list goes at once, without a scan.
      call('DEL', key)
    else
      l[REF] = ref
      l[PREV_TOTAL], l[TAIL_BUCKET], l[TAIL_TOTAL] = tonumber(tail[t]), ref + tonumber(tail[t + 1]), tonumber(tail[t + 2])
      l[BASE] = tonumber(head[2])
      l[FIRST] = ref + tonumber(head[3])
      if l[FIRST] < oldest then
        -- Some runs have left, not the newest: read the head in growing chunks up to the first
        -- run that still counts, then cut them off, keeping the reference and making the last
        -- gone run's total (element 2 * gone + 1) the new base.
        local gone, last_total, from, chunk, done = 0, 0, 2, 8, false
        while not done do
          local runs = call('LRANGE', key, from, from + 2 * chunk - 1)
          local j = 1
          while j < #runs do
            local bucket = ref + tonumber(runs[j])
            if bucket >= oldest then
              l[FIRST] = bucket
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
        call('LSET', key, 2 * gone, ref)
        call('LTRIM', key, 2 * gone, -1)
        l[BASE] = tonumber(last_total)
      end
    end
  end
  l[SUM] = l[TAIL_TOTAL] - l[BASE]
  if l[SUM] + permits > l[LIMIT] then
    allowed = false
  end
end

if allowed or count_refused then
  for i = 1, n do
    local key, l = KEYS[i], L[i]
    local bucket = floor(now / l[PRECISION])
    local add = permits
    if count_refused and add > l[LIMIT] then
      add = l[LIMIT]
    end
    local tail_bucket, tail_total = l[TAIL_BUCKET], l[TAIL_TOTAL]
    if tail_bucket == nil then
      call('RPUSH', key, bucket, 0, 0, add)
      call('PEXPIRE', key, ttl)
      l[REF], l[TAIL_BUCKET], l[TAIL_TOTAL], l[FIRST] = bucket, bucket, add, bucket
    elseif tail_bucket >= bucket then
      local new = tail_total + add
      if count_refused and new - l[PREV_TOTAL] > l[LIMIT] then
        new = l[PREV_TOTAL] + l[LIMIT]
      end
      if new > tail_total then
        call('LSET', key, -1, new)
        l[TAIL_TOTAL] = new
      end
    else
      call('RPUSH', key, bucket - l[REF], tail_total + add)
      call('PEXPIRE', key, ttl)
      l[TAIL_BUCKET], l[TAIL_TOTAL] = bucket, tail_total + add
    end
    l[SUM] = l[TAIL_TOTAL] - l[BASE]
  end
end

-- How long limit l stays full (no permit left) if nothing else is recorded: until its oldest run
-- leaves; 0 when it is not full.
local function full_for(l)
  if l[SUM] < l[LIMIT] or l[FIRST] == nil then
    return 0
  end
  return leaves_at(l, l[FIRST]) - now
end

local result = allowed and 1 or 0
if not figures then
  local hold = 0
  if not allowed and not count_refused then
    for i = 1, n do
      local f = full_for(L[i])
      if f > hold then
        hold = f
      end
    end
  end
  return {result, now, hold}
end

local binding, retry = 1, 0
if allowed then
  local least = L[1][LIMIT] - L[1][SUM]
  for i = 2, n do
    if L[i][LIMIT] - L[i][SUM] < least then
      least = L[i][LIMIT] - L[i][SUM]
      binding = i
    end
  end
else
  for i = 1, n do
    -- Walk the runs oldest first until enough permits have left: at most `permits` runs when
    -- only grants count, since the count is then at most N.
    local l = L[i]
    local excess = l[SUM] - (l[LIMIT] - permits)
    if excess > 0 then
      local from, chunk, wait = 2, 4, nil
      while wait == nil do
        local runs = call('LRANGE', KEYS[i], from, from + 2 * chunk - 1)
        local j = 1
        while j < #runs do
          if tonumber(runs[j + 1]) - l[BASE] >= excess then
            wait = leaves_at(l, l[REF] + tonumber(runs[j])) - now
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

local b = L[binding]
local remaining = b[LIMIT] - b[SUM]
if remaining < 0 then
  remaining = 0
end
local reset = 0
if b[SUM] > 0 then
  reset = leaves_at(b, b[TAIL_BUCKET]) - now
end
local hold = 0
if not allowed and not count_refused then
  hold = full_for(b)
end
return {result, now, remaining, retry, reset, binding, hold}
