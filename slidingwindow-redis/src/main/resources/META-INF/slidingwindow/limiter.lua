-- slidingwindow limiter: checks and records every limit of one id atomically, for one request or
-- for several requests in a row (of the same or of different ids, each decided on the state the
-- ones before it left).
--
-- Algorithm (the same as the in-process limiter). Bucket b(t) = floor(t / p). At time t a limit
-- counts the buckets b(t - W + 1) .. b(t); a request is granted iff count + permits <= N for
-- every limit, and then its permits are added to bucket b(t) of every limit. Only granted permits
-- are recorded unless refused attempts count too (a bucket then saturates at N).
--
-- Storage. Each limit is one LIST. Element 0 is a header of six doubles (struct '<dddddd'):
--   ref    the bucket that the offsets of the closed runs below count from
--   base   the running total of every run already removed
--   first  the bucket of the oldest stored run
--   tail   the bucket of the newest run
--   total  the running total up to and including the newest run
--   prev   the running total before the newest run
-- then one (bucket - ref, running total) pair per closed run, that is per non-empty bucket before
-- the newest, oldest first. The newest run lives in the header only. The window's count is total -
-- base, and a bucket's count is its total minus the one before. Storing buckets as small offsets
-- keeps a closed run at about 7 bytes.
--
-- Work per request. A request reads the header (LINDEX 0). A grant into the newest bucket rewrites the
-- header (LSET 0); a grant into a later bucket closes the newest run (RPUSH), rewrites the header
-- and sets the key's expiry. Runs leave from the head: the gone runs are read in growing chunks,
-- then cut off by writing the new header over the last gone run's place and trimming before it
-- (LSET, LTRIM). Every run is pushed once and removed once: amortised O(1) work per request, never a
-- loop over the window's buckets. At most min(N, ceil(W / p) + 1) runs are stored (ceil(W / p) + 1
-- when refused attempts count). An empty limit has no key; a list whose newest run has left is
-- deleted at once. A key gets PEXPIRE ARGV[2] whenever a run begins: a later grant into that same
-- run cannot need the key for longer, since the run leaves at most W + p after it began.
--
-- Time only moves forward: a time before the newest run's bucket is recorded into that run, and
-- counting from an earlier time only keeps more runs, so a clock that steps back (a failover to a
-- replica whose clock is behind) never lets more through.
--
-- Numbers are Lua doubles: every time, bucket and total must stay below 2^53 (microseconds since
-- 1970 are about 1.7e15; totals restart whenever a key expires).
--
-- L limits, R requests. Request r (r = 1 .. R) holds keys KEYS[(r-1)L + 1 .. rL], one LIST per limit,
-- in the order of the limits; the keys of one request share one hash tag (a Cluster caller sends
-- one request per call, or requests whose keys share a slot).
--
-- ARGV[1]   1 to count refused attempts too, else 0
-- ARGV[2]   expiry of a key in milliseconds: the longest window plus its bucket, rounded up
-- ARGV[3]   L
-- ARGV[4 + 3(i-1)], ARGV[5 + 3(i-1)], ARGV[6 + 3(i-1)]   N, W and p of limit i; W, p in microseconds
-- then per request r, at a = 4 + 3L + 2(r-1):
-- ARGV[a]      2 * permits + (1 to return the decision's figures, else 0); permits in 1 .. min(N)
-- ARGV[a + 1]  now in microseconds, or the empty string for the server's TIME (read once a call)
--
-- Returns  per request, one after the other (a request whose key holds something else gets
--          {-1, now, message}, padded with zeros to the length below):
--          without figures: {allowed (1 or 0), now (microseconds), hold}, where hold is how long
--          from now every request for this id stays refused if nothing else is recorded: the
--          longest time any limit stays full (until its oldest run leaves);
--          with figures: {allowed, now, remaining, retryAfter (microseconds), resetAfter
--          (microseconds), binding limit (1-based), hold}, the figures of the binding limit: on a
--          grant the one with the fewest permits left, on a refusal the one that keeps the request
--          waiting longest (the first such limit on ties); hold is then how long the binding limit
--          stays full, during which these figures only count down.
--          hold is 0 on a grant, when no limit (or not the binding one) is full, and when refused
--          attempts count (a refusal then changes the stored runs).

local call, tonumber, floor, pack, unpack = redis.call, tonumber, math.floor, struct.pack, struct.unpack
local HEADER = '<dddddd'

local count_refused = ARGV[1] == '1'
local ttl = ARGV[2]
local n = tonumber(ARGV[3])
local LIMITS = {}
for i = 1, n do
  local a = 4 + 3 * (i - 1)
  LIMITS[i] = {tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])}
end

-- The state of limit i is the array L[i]; these name its fields. REF .. PREV are the header's.
local REF, BASE, FIRST, TAIL, TOTAL, PREV, LIMIT, WINDOW, PRECISION, SUM = 1, 2, 3, 4, 5, 6, 7, 8, 9, 10

local function header(l)
  return pack(HEADER, l[REF], l[BASE], l[FIRST], l[TAIL], l[TOTAL], l[PREV])
end

-- The time at which bucket b of a limit stops being counted: (b + 1) p + W - 1.
local function leaves_at(l, b)
  return (b + 1) * l[PRECISION] + l[WINDOW] - 1
end

-- How long limit l stays full (no permit left) if nothing else is recorded: until its oldest run
-- leaves; 0 when it is not full.
local function full_for(l, now)
  if l[SUM] < l[LIMIT] or not l[FIRST] then
    return 0
  end
  return leaves_at(l, l[FIRST]) - now
end

local server_now
local out = {}

-- Appends the reply of a request that could not be decided: {-1, now, message}, padded to the
-- length of its reply.
local function failed(figures, now, message)
  local o = #out
  out[o + 1], out[o + 2], out[o + 3] = -1, now, message
  if figures then
    out[o + 4], out[o + 5], out[o + 6], out[o + 7] = 0, 0, 0, 0
  end
end

-- Decides one request on keys KEYS[k + 1 .. k + n] and appends its reply to out. A key that holds
-- something else fails this request alone, before anything of it is written.
local function decide(k, permits, figures, now)
  local L = {}
  local allowed = true
  for i = 1, n do
    local key = KEYS[k + i]
    local limit, window, precision = LIMITS[i][1], LIMITS[i][2], LIMITS[i][3]
    local oldest = floor((now - window + 1) / precision)
    local h = redis.pcall('LINDEX', key, 0)
    local l
    if h then
      if type(h) ~= 'string' or #h ~= 48 then
        return failed(figures, now, 'slidingwindow: ' .. key .. ' does not hold a limiter state')
      end
      local ref, base, first, tail, total, prev = unpack(HEADER, h)
      if tail < oldest then
        -- Even the newest run has left: the whole list goes at once, without a scan.
        call('DEL', key)
      else
        l = {ref, base, first, tail, total, prev, limit, window, precision, total - base}
      end
    end
    if l == nil then
      l = {false, 0, false, false, 0, 0, limit, window, precision, 0}
    elseif l[FIRST] < oldest then
      -- Some closed runs have left (not the newest, which still counts): read them in growing
      -- chunks up to the first closed run that still counts, or to the end of the list. The last
      -- gone run's total becomes the base, and the header is written over its place (element 2 *
      -- gone), before which the list is cut.
      local ref, gone, base, first, from, chunk, done = l[REF], 0, l[PREV], l[TAIL], 1, 8, false
      while not done do
        local runs = call('LRANGE', key, from, from + 2 * chunk - 1)
        local j = 1
        while j < #runs do
          local bucket = ref + tonumber(runs[j])
          if bucket >= oldest then
            first = bucket
            done = true
            break
          end
          base = tonumber(runs[j + 1])
          gone = gone + 1
          j = j + 2
        end
        if #runs < 2 * chunk then
          done = true -- the list ended: every closed run has left, and base is prev
        end
        from = from + 2 * chunk
        chunk = chunk * 2
      end
      l[BASE], l[FIRST], l[SUM] = base, first, l[TOTAL] - base
      call('LSET', key, 2 * gone, header(l))
      call('LTRIM', key, 2 * gone, -1)
    end
    L[i] = l
    if l[SUM] + permits > limit then
      allowed = false
    end
  end

  if allowed or count_refused then
    for i = 1, n do
      local key, l = KEYS[k + i], L[i]
      local bucket = floor(now / l[PRECISION])
      local add = permits
      if count_refused and add > l[LIMIT] then
        add = l[LIMIT]
      end
      if not l[TAIL] then
        l[REF], l[FIRST], l[TAIL], l[TOTAL], l[PREV] = bucket, bucket, bucket, add, 0
        call('RPUSH', key, header(l))
        call('PEXPIRE', key, ttl)
      elseif bucket <= l[TAIL] then
        local new = l[TOTAL] + add
        if count_refused and new - l[PREV] > l[LIMIT] then
          new = l[PREV] + l[LIMIT]
        end
        if new > l[TOTAL] then
          l[TOTAL] = new
          call('LSET', key, 0, header(l))
        end
      else
        if l[FIRST] == l[TAIL] then
          l[REF] = l[TAIL] -- no closed run yet: offsets start from this one
        end
        call('RPUSH', key, l[TAIL] - l[REF], l[TOTAL])
        l[TAIL], l[PREV], l[TOTAL] = bucket, l[TOTAL], l[TOTAL] + add
        call('LSET', key, 0, header(l))
        call('PEXPIRE', key, ttl)
      end
      l[SUM] = l[TOTAL] - l[BASE]
    end
  end

  local result = allowed and 1 or 0
  if not figures then
    local hold = 0
    if not allowed and not count_refused then
      for i = 1, n do
        local f = full_for(L[i], now)
        if f > hold then
          hold = f
        end
      end
    end
    local o = #out
    out[o + 1], out[o + 2], out[o + 3] = result, now, hold
    return nil
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
      -- only grants count, since the count is then at most N. The newest run, in the header,
      -- ends the walk: by then the whole count has left.
      local l = L[i]
      local excess = l[SUM] - (l[LIMIT] - permits)
      if excess > 0 then
        local from, chunk, wait = 1, 4, nil
        while wait == nil do
          local runs = call('LRANGE', KEYS[k + i], from, from + 2 * chunk - 1)
          local j = 1
          while j < #runs do
            if tonumber(runs[j + 1]) - l[BASE] >= excess then
              wait = leaves_at(l, l[REF] + tonumber(runs[j])) - now
              break
            end
            j = j + 2
          end
          if wait == nil and #runs < 2 * chunk then
            wait = leaves_at(l, l[TAIL]) - now
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
    reset = leaves_at(b, b[TAIL]) - now
  end
  local hold = 0
  if not allowed and not count_refused then
    hold = full_for(b, now)
  end
  local o = #out
  out[o + 1], out[o + 2], out[o + 3], out[o + 4], out[o + 5], out[o + 6], out[o + 7] =
    result, now, remaining, retry, reset, binding, hold
  return nil
end

for r = 1, #KEYS / n do
  local a = 4 + 3 * n + 2 * (r - 1)
  local q = tonumber(ARGV[a])
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
  decide((r - 1) * n, floor(q / 2), q % 2 == 1, now)
end
return out
