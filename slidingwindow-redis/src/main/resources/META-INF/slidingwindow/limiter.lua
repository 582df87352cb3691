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
-- and, once per stretch (see Expiry), renews the key's expiry. Runs leave from the head: the gone
-- runs are read in growing chunks, then cut off by writing the new header over the last gone run's
-- place and trimming before it (LSET, LTRIM). Every run is pushed once and removed once: amortised O(1) work per request, never a
-- loop over the window's buckets. At most min(N, ceil(W / p) + 1) runs are stored (ceil(W / p) + 1
-- when refused attempts count). An empty limit has no key; a list whose newest run has left is
-- deleted at once.
--
-- Expiry. Let T = ARGV[2] (at least W + p of every limit) and E = T / 4. A key gets PEXPIRE T + E
-- when it is made, and again when a run begins in a later stretch of E than the newest run (stretch
-- floor(bucket * p / E)). Then the expiry was last set at a time at or after the start s of the
-- newest run's stretch, so it falls at or after s + T + E, later than the newest run's start plus
-- T, by which that run has left. A key is therefore gone at most T + E after its newest run began,
-- and most runs need no PEXPIRE: one per stretch instead of one per run.
-- The proof needs every call that touches a key to bring the same T. A limiter without plans
-- always sends the same limits; a limiter with plans names a key by its window and precision only,
-- and calls of different plans may bring different longest windows, so its calls mark ARGV[1] with
-- 'w' and each limit then takes T = max(ARGV[2], W + p rounded up to milliseconds), a function of
-- the key alone.
--
-- Cost. A request's commands (LINDEX, then at most RPUSH, LSET and now and then PEXPIRE) take
-- about half of its time in the script; the other half is the script's own steps, the header's
-- packing and the numbers it sends. So a request issues only those commands, the clock is read
-- once a call, and every number goes to Redis as text formatted here with %d: Redis 7.0 would
-- format a Lua number with printf's %.17g, which is slow. A call of several limits keeps their state
-- in one flat array per call; a call of one sliding limit (the common case) keeps it in locals and
-- makes only the functions it may need, which takes about a tenth off Redis's CPU per request.
--
-- Time only moves forward: a time before the newest run's bucket is recorded into that run, and
-- counting from an earlier time only keeps more runs, so a clock that steps back (a failover to a
-- replica whose clock is behind) never lets more through.
--
-- Calendar quotas. A limit whose W argument starts with '@' is a calendar quota: at most N permits
-- in each period of a time zone's calendar (a day, week, month or year), counted exactly. Lua has no
-- time-zone rules, so the caller computes the periods: around its own clock's estimate of now it
-- finds the period c that holds it and sends c and the starts s0, s1, s2, s3 of periods c - 1,
-- c, c + 1 and c + 2 (in the script's time scale, the one of now; a period skipped by the zone has
-- s(j) = s(j + 1)). The script picks the period of its own now: c - 1 on [s0, s1), c on [s1, s2),
-- c + 1 on [s2, s3). So the clock that decides is the script's (the server's TIME by default), and
-- the caller's clock only chooses which periods are sent: a caller whose clock is off by less than
-- a period sends periods that hold the server's now. When now is outside [s0, s3) the request (or
-- quota operation) is not decided: it gets {-1, now, message}, like a key that holds something
-- else, and nothing of it is recorded.
-- Storage: one STRING per quota, struct '<dddd' (32 bytes): the index of the period it counts, that
-- period's start and end, and the count. A key that holds an earlier period than now's counts 0
-- (the next grant overwrites it); one that holds a later period (a clock that stepped back, or a
-- caller whose clock is ahead in client time) is counted in, so time only moves forward here too
-- and a period never holds more than N. Periods are named by their index, not their instants, so
-- callers whose time-zone rules differ still agree on which permits a period holds.
-- Work per request: GET; a grant also SETs the key with PX until its period ends (at least the
-- least expiry sent, for client time), so a key is gone once its period ends: at most one key per
-- quota and id, 32 bytes. A refusal writes nothing. The hold of a full quota is at most
-- CALENDAR_HOLD (1 s), so that a reset or refund elsewhere is seen within a second, not at the
-- period's end.
--
-- Numbers are Lua doubles: every time, bucket and total must stay below 2^53 (microseconds since
-- 1970 are about 1.7e15; totals restart whenever a key expires).
--
-- L limits, R requests. Request r (r = 1 .. R) holds keys KEYS[(r-1)L + 1 .. rL], one per limit (a
-- LIST, or a STRING for a calendar quota), in the order of the limits; the keys of one request
-- share one hash tag (a Cluster caller sends one request per call, or requests whose keys share a
-- slot).
--
-- ARGV[1]   1 to count refused attempts too, else 0
--           ('0w' or '1w' for a limiter with plans: each limit takes its own T, see Expiry)
-- ARGV[2]   T, in milliseconds: the longest window plus its bucket, rounded up (see Expiry); with
--           'w', the least T of every limit (calendar quotas take no part in T)
-- ARGV[3]   L
-- ARGV[4 + 3(i-1)], ARGV[5 + 3(i-1)], ARGV[6 + 3(i-1)]   N, W and p of limit i; W, p in microseconds
--           or, for a calendar quota: N, '@' followed by the least expiry in milliseconds (0 with
--           the server's TIME), and 'c,s0,s1,s2,s3' (see Calendar quotas; times in microseconds)
-- then per request r, at a = 4 + 3L + 2(r-1):
-- ARGV[a]      2 * permits + (1 to return the decision's figures, else 0); permits in 1 .. min(N)
-- ARGV[a + 1]  now in microseconds, or the empty string for the server's TIME (read once a call)
-- or, for a call of one quota operation on one id (see Quota operations below):
-- ARGV[a]      'peek', 'reset', 'refund:K' or 'refund:K:AT' (K permits; AT in microseconds; a
--              calendar quota gives back only if its key's period holds AT)
-- ARGV[a + 1]  now, as above
--
-- Returns  per request, one after the other (a request whose key holds something else gets
--          {-1, now, message}, padded with zeros to the length below):
--          without figures: {allowed (1 or 0), now (microseconds), hold}, where hold is how long
--          from now every request for this id stays refused if nothing else is recorded: the
--          longest time any limit stays full (until its oldest run leaves; a calendar quota until
--          its period ends, at most CALENDAR_HOLD);
--          with figures: {allowed, now, remaining, retryAfter (microseconds), resetAfter
--          (microseconds), binding limit (1-based), hold}, the figures of the binding limit: on a
--          grant the one with the fewest permits left, on a refusal the one that keeps the request
--          waiting longest (the first such limit on ties); hold is then how long the binding limit
--          stays full, during which these figures only count down.
--          hold is 0 on a grant, when no limit (or not the binding one) is full, and when refused
--          attempts count (a refusal then changes the stored runs).
--          A quota operation returns {1, now, used, resetAfter (microseconds)} with the last two
--          per limit, as of after the operation (0 and 0 after a reset), or {-1, now, message}
--          when a key of the id holds something else or now is outside a calendar quota's periods
--          (nothing is changed then). A calendar quota's retryAfter and resetAfter are the time
--          until its period ends.

local call, tonumber, floor, pack, unpack = redis.call, tonumber, math.floor, struct.pack, struct.unpack
local format = string.format
local HEADER = '<dddddd'
local CALENDAR = '<dddd'
local CALENDAR_HOLD = 1000000

local count_refused = ARGV[1] == '1' or ARGV[1] == '1w'
local own_ttl = ARGV[1] == '0w' or ARGV[1] == '1w'
local ttl = tonumber(ARGV[2])
local n = tonumber(ARGV[3])

-- The state of every limit lives in one flat array S, ten slots per limit from o = 10 (i - 1):
-- S[o + 1] .. S[o + 6] the header's ref, base, first, tail, total and prev (first and tail false
-- while the limit holds nothing), S[o + 7] .. S[o + 9] the limit's N, W and p, S[o + 10] its count.
-- EXPIRY[i] and STRETCH[i] are limit i's T + E in milliseconds and E in microseconds (see Expiry).
-- Nothing is allocated per request or per limit: the script's own work stays small beside its
-- Redis commands.
-- A calendar quota's slots hold S[o + 1] the index of the period it counts, S[o + 2], S[o + 3] that
-- period's start and end, S[o + 4] whether its key holds that period, S[o + 7] its N and S[o + 10]
-- its count; CAL[i] is {c, s0, s1, s2, s3, least expiry in milliseconds} (see Calendar quotas).
local S, EXPIRY, STRETCH, CAL = {}, {}, {}, {}
for i = 1, n do
  local a, o = 1 + 3 * i, 10 * (i - 1)
  if string.byte(ARGV[a + 1]) == 64 then -- '@': a calendar quota
    local c, s0, s1, s2, s3 = string.match(ARGV[a + 2], '^(-?%d+),(-?%d+),(-?%d+),(-?%d+),(-?%d+)$')
    S[o + 7] = tonumber(ARGV[a])
    CAL[i] = {tonumber(c), tonumber(s0), tonumber(s1), tonumber(s2), tonumber(s3),
      tonumber(string.sub(ARGV[a + 1], 2))}
  else
    S[o + 7], S[o + 8], S[o + 9] = tonumber(ARGV[a]), tonumber(ARGV[a + 1]), tonumber(ARGV[a + 2])
    local t = ttl
    if own_ttl then
      t = math.max(ttl, math.ceil((S[o + 8] + S[o + 9]) / 1000))
    end
    EXPIRY[i], STRETCH[i] = format('%d', t + math.ceil(t / 4)), t * 250
  end
end

local op = ARGV[4 + 3 * n]
local quota_op = not tonumber(op)
-- A call of one sliding limit (the common case) decides on its own path, at the end.
local single = n == 1 and not CAL[1] and not quota_op

-- Redis runs this whole chunk on every call, so each function below is made anew each time: the
-- ones a call does not need are not made (calls of one sliding limit need only trim and wait_for).

-- Removes the closed runs of limit o that have left (older than bucket oldest; the newest run still
-- counts): reads them in growing chunks up to the first closed run that still counts, or to the end
-- of the list. The last gone run's total becomes the base, and the header is written over its
-- place (element 2 gone), before which the list is cut; with write false (a peek) nothing is cut,
-- only the state in S is as if it were.
local function trim(key, o, oldest, write)
  local ref, gone, base, first, from, chunk, done = S[o + 1], 0, S[o + 6], S[o + 4], 1, 8, false
  while not done do
    local runs = call('LRANGE', key, format('%d', from), format('%d', from + 2 * chunk - 1))
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
  S[o + 2], S[o + 3] = base, first
  if write then
    call('LSET', key, format('%d', 2 * gone), pack(HEADER, ref, base, first, S[o + 4], S[o + 5], S[o + 6]))
    call('LTRIM', key, format('%d', 2 * gone), '-1')
  end
end

-- How long from now limit o of a refused request keeps it waiting: walks the runs oldest first
-- until enough permits have left, at most `permits` runs when only grants count (the count is
-- then at most N). The newest run, in the header, ends the walk: by then the whole count has left.
local function wait_for(key, o, excess, now)
  local base, window, precision = S[o + 2], S[o + 8], S[o + 9]
  local from, chunk = 1, 4
  while true do
    local runs = call('LRANGE', key, format('%d', from), format('%d', from + 2 * chunk - 1))
    local j = 1
    while j < #runs do
      if tonumber(runs[j + 1]) - base >= excess then
        return (S[o + 1] + tonumber(runs[j]) + 1) * precision + window - 1 - now
      end
      j = j + 2
    end
    if #runs < 2 * chunk then
      return (S[o + 4] + 1) * precision + window - 1 - now
    end
    from = from + 2 * chunk
    chunk = chunk * 2
  end
end

local load, period_at, cal_load, cal_write, full_for, reset_after
if not single then
  -- Reads limit o's header from key into S as of time now (LINDEX 0): a list whose newest run has
  -- left is deleted at once, without a scan, and closed runs that have left are removed (with write
  -- false, a peek, neither is written). Returns false and why, changing nothing, when the key holds
  -- something else.
  function load(key, o, now, write)
    local oldest = floor((now - S[o + 8] + 1) / S[o + 9])
    local h = redis.pcall('LINDEX', key, '0')
    local ref, base, first, tail, total, prev = false, 0, false, false, 0, 0
    if h then
      if type(h) ~= 'string' or #h ~= 48 then
        return false, 'slidingwindow: ' .. key .. ' does not hold a limiter state'
      end
      ref, base, first, tail, total, prev = unpack(HEADER, h)
      if tail < oldest then
        -- Even the newest run has left: the whole list goes at once, without a scan.
        if write then
          call('DEL', key)
        end
        ref, base, first, tail, total, prev = false, 0, false, false, 0, 0
      end
    end
    S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 5], S[o + 6] = ref, base, first, tail, total, prev
    if first and first < oldest then
      trim(key, o, oldest, write)
    end
    S[o + 10] = total - S[o + 2]
    return true
  end

  -- How long limit o (limit i) stays full from now, if nothing is taken back: until its oldest run
  -- leaves, or for a calendar quota until its period ends, but at most CALENDAR_HOLD.
  function full_for(o, i, now)
    if CAL[i] then
      return math.min(S[o + 3] - now, CALENDAR_HOLD)
    elseif S[o + 3] then
      return (S[o + 3] + 1) * S[o + 9] + S[o + 8] - 1 - now
    end
    return 0
  end

  -- How long from now until limit o (limit i) holds nothing: until its newest run leaves, or for a
  -- calendar quota until its period ends; 0 when it holds nothing now.
  function reset_after(o, i, now)
    if S[o + 10] <= 0 then
      return 0
    elseif CAL[i] then
      return S[o + 3] - now
    end
    return (S[o + 4] + 1) * S[o + 9] + S[o + 8] - 1 - now
  end

end
if next(CAL) then
  -- Calendar quotas. The period of quota i that holds now, as index, start and end, from the periods
  -- the caller sent; nil when now falls outside them.
  function period_at(i, now)
    local c = CAL[i]
    if now < c[2] or now >= c[5] then
      return nil
    elseif now >= c[4] then
      return c[1] + 1, c[4], c[5]
    elseif now >= c[3] then
      return c[1], c[3], c[4]
    end
    return c[1] - 1, c[2], c[3]
  end

  -- Reads calendar quota i (slot o) from key into S as of time now (GET): the stored count if it
  -- belongs to the period of now or a later one, else 0 in the period of now. Writes nothing.
  -- Returns false and why when now is outside the periods sent or the key holds something else.
  function cal_load(key, o, i, now)
    local index, first, last = period_at(i, now)
    if not index then
      local c = CAL[i]
      return false, 'slidingwindow: the time ' .. string.format('%.0f', now)
        .. ' microseconds is outside the calendar periods sent for ' .. key .. ', ['
        .. string.format('%.0f', c[2]) .. ', ' .. string.format('%.0f', c[5])
        .. '): the clocks differ by more than a period'
    end
    local h = redis.pcall('GET', key)
    local count, held = 0, false
    if h then
      if type(h) ~= 'string' or #h ~= 32 then
        return false, 'slidingwindow: ' .. key .. ' does not hold a limiter state'
      end
      local si, ss, se, sc = unpack(CALENDAR, h)
      if si >= index then
        index, first, last, count, held = si, ss, se, sc, true
      end
    end
    S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 10] = index, first, last, held, count
    return true
  end

  -- Writes calendar quota i's count (slot o) to key, to expire when its period ends (SET PX), or
  -- deletes the key when the count is 0.
  function cal_write(key, o, i, now)
    if S[o + 10] > 0 then
      local px = math.max(math.ceil((S[o + 3] - now) / 1000), CAL[i][6])
      call('SET', key, pack(CALENDAR, S[o + 1], S[o + 2], S[o + 3], S[o + 10]), 'PX', format('%d', px))
      S[o + 4] = true
    else
      call('DEL', key)
      S[o + 4] = false
    end
  end

end

if quota_op then
  -- Quota operations. A call whose request argument is not a number holds one quota operation on
  -- one id (KEYS[1 .. L]) instead of requests: 'peek' (writes nothing), 'reset' (deletes every key),
  -- 'refund:K' (takes back up to K of the newest recorded permits of each limit) or 'refund:K:AT'
  -- (takes back up to K from bucket b(AT) of each limit, AT a time this script returned for a grant).
  -- A refund takes only what a window holds, so no count goes below zero and no limit is exceeded
  -- by it; a run it empties is removed, so the header always holds the newest non-empty run, first
  -- the oldest stored one, and the stored runs stay within the bounds above. A refund only moves the
  -- newest run back to an earlier bucket, so the key's expiry still covers it (see Expiry). A
  -- calendar quota gives back from its key's count, only while the key holds the period of now or a
  -- later one, and for 'refund:K:AT' only if that period holds AT (never from a later period); a
  -- count brought to 0 deletes the key, any other is written with its expiry at the period's end.

  -- Limit o's newest run was emptied (total = prev): the newest closed run (the list's last pair)
  -- becomes the header's run, or the limit holds nothing. closed is how many closed runs the list
  -- holds; returns how many are left.
  local function drop_newest(key, o, closed)
    if closed == 0 then
      S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 5], S[o + 6] = false, 0, false, false, 0, 0
      return 0
    end
    local last = call('LRANGE', key, '-3', '-1') -- the total before the pair (or the header), the pair
    S[o + 4], S[o + 5] = S[o + 1] + tonumber(last[2]), tonumber(last[3])
    S[o + 6] = closed > 1 and tonumber(last[1]) or S[o + 2]
    call('LTRIM', key, '0', '-3')
    if closed == 1 then
      S[o + 3] = S[o + 4]
    end
    return closed - 1
  end

  -- Takes back up to k of limit o's newest permits.
  local function refund_newest(key, o, k, closed)
    while k > 0 and S[o + 4] do
      local c = S[o + 5] - S[o + 6]
      if c > k then
        S[o + 5], k = S[o + 5] - k, 0
      else
        S[o + 5], k = S[o + 6], k - c
        closed = drop_newest(key, o, closed)
      end
    end
  end

  -- Takes back up to k of limit o's permits recorded in bucket b: from the header's run, or from the
  -- closed run of that bucket, whose running total and every later one go down. A bucket that holds
  -- nothing, or has left the window, gives nothing back.
  local function refund_bucket(key, o, k, b, closed)
    if not S[o + 4] or b < S[o + 3] or b > S[o + 4] then
      return
    end
    if b == S[o + 4] then
      local d = math.min(k, S[o + 5] - S[o + 6])
      S[o + 5] = S[o + 5] - d
      if S[o + 5] == S[o + 6] then
        drop_newest(key, o, closed)
      end
      return
    end
    local runs = call('LRANGE', key, '1', '-1') -- the closed runs: runs[j] is element j of the list
    for j = 1, #runs - 1, 2 do
      if S[o + 1] + tonumber(runs[j]) == b then
        local before = j > 1 and tonumber(runs[j - 1]) or S[o + 2]
        local d = math.min(k, tonumber(runs[j + 1]) - before)
        for m = j + 1, #runs, 2 do
          call('LSET', key, format('%d', m), format('%d', tonumber(runs[m]) - d))
        end
        S[o + 5], S[o + 6] = S[o + 5] - d, S[o + 6] - d
        if tonumber(runs[j + 1]) - d == before then
          -- The run is empty: it goes, and the next one is the oldest if it was.
          call('LSET', key, format('%d', j), '-')
          call('LSET', key, format('%d', j + 1), '-')
          call('LREM', key, '2', '-')
          if b == S[o + 3] then
            S[o + 3] = j + 2 <= #runs and S[o + 1] + tonumber(runs[j + 2]) or S[o + 4]
          end
        end
        return
      end
    end
  end

  -- Runs quota operation op on the id of KEYS[1 .. L] at time now.
  local function quota(op, now)
    local out = {1, now}
    if op == 'reset' then
      for i = 1, n do
        call('DEL', KEYS[i])
        out[1 + 2 * i], out[2 + 2 * i] = 0, 0
      end
      return out
    end
    local k, at = string.match(op, '^refund:(%d+):?(%-?%d*)$')
    for i = 1, n do
      local ok, why
      if CAL[i] then
        ok, why = cal_load(KEYS[i], 10 * (i - 1), i, now)
      else
        ok, why = load(KEYS[i], 10 * (i - 1), now, k ~= nil)
      end
      if not ok then
        return {-1, now, why}
      end
    end
    for i = 1, n do
      local key, o = KEYS[i], 10 * (i - 1)
      if k and CAL[i] then
        -- The count of the key's period, if the refund's time (when given) falls in it.
        local d = math.min(tonumber(k), S[o + 10])
        if at ~= '' and (tonumber(at) < S[o + 2] or tonumber(at) >= S[o + 3]) then
          d = 0
        end
        if S[o + 4] and d > 0 then
          S[o + 10] = S[o + 10] - d
          cal_write(key, o, i, now)
        end
      elseif k and S[o + 4] then
        local closed = (call('LLEN', key) - 1) / 2
        if at == '' then
          refund_newest(key, o, tonumber(k), closed)
        else
          refund_bucket(key, o, tonumber(k), floor(tonumber(at) / S[o + 9]), closed)
        end
        if not S[o + 4] or S[o + 5] == S[o + 2] then
          call('DEL', key)
          S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 5], S[o + 6] = false, 0, false, false, 0, 0
        else
          call('LSET', key, '0', pack(HEADER, S[o + 1], S[o + 2], S[o + 3], S[o + 4], S[o + 5], S[o + 6]))
        end
        S[o + 10] = S[o + 5] - S[o + 2]
      end
      out[1 + 2 * i], out[2 + 2 * i] = S[o + 10], reset_after(o, i, now)
    end
    return out
  end

  local now = ARGV[5 + 3 * n]
  if now == '' then
    local time = call('TIME')
    now = time[1] * 1000000 + time[2]
  else
    now = tonumber(now)
  end
  return quota(op, now)
end

local out, on, server_now = {}, 0, nil
local limit, window, precision, expiry, stretch = S[7], S[8], S[9], EXPIRY[1], STRETCH[1]
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
  local permits, figures, k = floor(q / 2), q % 2 == 1, (r - 1) * n
  local allowed, bad = true, nil
  if single then
    -- One sliding limit, the common case: the steps of load and of the loops below, with the state
    -- in locals rather than in S (each slot read or written is one more Lua instruction, and the
    -- script's own instructions cost Redis as much as its commands; see Cost). Runs are read only
    -- by trim and, for a refusal's figures, by wait_for, which work on S.
    -- It repeats the loops below on purpose, for speed: with this path Redis spends 7.2-7.4 us of
    -- CPU per request of one limit instead of 8.3 (isolated benchmark), and this is the hot path.
    -- A change to one path must be made to the other; the conformance ITs run both.
    local key = KEYS[r]
    local oldest = floor((now - window + 1) / precision)
    local h = redis.pcall('LINDEX', key, '0')
    if h and (type(h) ~= 'string' or #h ~= 48) then
      bad = 'slidingwindow: ' .. key .. ' does not hold a limiter state'
    else
      local ref, base, first, tail, total, prev = false, 0, false, false, 0, 0
      if h then
        ref, base, first, tail, total, prev = unpack(HEADER, h)
        if tail < oldest then
          call('DEL', key)
          ref, base, first, tail, total, prev = false, 0, false, false, 0, 0
        elseif first < oldest then
          S[1], S[2], S[3], S[4], S[5], S[6] = ref, base, first, tail, total, prev
          trim(key, 0, oldest, true)
          base, first = S[2], S[3]
        end
      end
      local count = total - base
      allowed = count + permits <= limit
      if allowed or count_refused then
        local add = permits
        if count_refused and add > limit then
          add = limit
        end
        local bucket = floor(now / precision)
        if not tail then
          ref, first, tail, total, prev = bucket, bucket, bucket, add, 0
          call('RPUSH', key, pack(HEADER, bucket, base, bucket, bucket, add, 0))
          call('PEXPIRE', key, expiry)
        elseif bucket <= tail then
          local new = total + add
          if count_refused and new - prev > limit then
            new = prev + limit
          end
          if new > total then
            total = new
            call('LSET', key, '0', pack(HEADER, ref, base, first, tail, new, prev))
          end
        else
          if first == tail then
            ref = tail
          end
          call('RPUSH', key, format('%d', tail - ref), format('%d', total))
          local renew = floor(bucket * precision / stretch) ~= floor(tail * precision / stretch)
          tail, total, prev = bucket, total + add, total
          call('LSET', key, '0', pack(HEADER, ref, base, first, bucket, total, prev))
          if renew then
            call('PEXPIRE', key, expiry)
          end
        end
        count = total - base
      end
      local result, hold = allowed and 1 or 0, 0
      if not allowed and not count_refused and count >= limit then
        hold = (first + 1) * precision + window - 1 - now -- full_for
      end
      if not figures then
        out[on + 1], out[on + 2], out[on + 3] = result, now, hold
        on = on + 3
      else
        local retry, reset, remaining = 0, 0, limit - count
        if remaining < 0 then
          remaining = 0
        end
        if count > 0 then
          reset = (tail + 1) * precision + window - 1 - now -- reset_after
        end
        if not allowed and count + permits > limit then
          S[1], S[2], S[3], S[4], S[5], S[6] = ref, base, first, tail, total, prev
          retry = math.max(wait_for(key, 0, count + permits - limit, now), 0)
        end
        out[on + 1], out[on + 2], out[on + 3], out[on + 4], out[on + 5], out[on + 6], out[on + 7] =
          result, now, remaining, retry, reset, 1, hold
        on = on + 7
      end
    end
  else
    -- Reads every limit of the request. A key that holds something else fails this request alone,
    -- before anything of it is recorded.
    for i = 1, n do
      local key, o = KEYS[k + i], 10 * (i - 1)
      local ok, why
      if CAL[i] then
        ok, why = cal_load(key, o, i, now)
      else
        ok, why = load(key, o, now, true)
      end
      if not ok then
        bad = why
        break
      end
      if S[o + 10] + permits > S[o + 7] then
        allowed = false
      end
    end

    if not bad then
      if allowed or count_refused then
        -- Records the permits into bucket b(now) of every limit.
        for i = 1, n do
          local key, o = KEYS[k + i], 10 * (i - 1)
          local limit, tail, total = S[o + 7], S[o + 4], S[o + 5]
          local add = permits
          if count_refused and add > limit then
            add = limit
          end
          if CAL[i] then
            -- Into the period loaded: the one of now, or a later one the key holds.
            local new = S[o + 10] + add
            if count_refused and new > limit then
              new = limit
            end
            if new > S[o + 10] then
              S[o + 10] = new
              cal_write(key, o, i, now)
            end
          else
            local bucket = floor(now / S[o + 9])
            if not tail then
              S[o + 1], S[o + 3], S[o + 4], S[o + 5], S[o + 6] = bucket, bucket, bucket, add, 0
              call('RPUSH', key, pack(HEADER, bucket, S[o + 2], bucket, bucket, add, 0))
              call('PEXPIRE', key, EXPIRY[i])
            elseif bucket <= tail then
              -- A time before the newest run's bucket is recorded into that run.
              local new = total + add
              if count_refused and new - S[o + 6] > limit then
                new = S[o + 6] + limit
              end
              if new > total then
                S[o + 5] = new
                call('LSET', key, '0', pack(HEADER, S[o + 1], S[o + 2], S[o + 3], tail, new, S[o + 6]))
              end
            else
              if S[o + 3] == tail then
                S[o + 1] = tail -- no closed run yet: offsets start from this one
              end
              call('RPUSH', key, format('%d', tail - S[o + 1]), format('%d', total))
              S[o + 4], S[o + 5], S[o + 6] = bucket, total + add, total
              call('LSET', key, '0', pack(HEADER, S[o + 1], S[o + 2], S[o + 3], bucket, total + add, total))
              local precision = S[o + 9]
              if floor(bucket * precision / STRETCH[i]) ~= floor(tail * precision / STRETCH[i]) then
                call('PEXPIRE', key, EXPIRY[i])
              end
            end
            S[o + 10] = S[o + 5] - S[o + 2]
          end
        end
      end

      local result = allowed and 1 or 0
      if not figures then
        -- hold: the longest time any limit stays full (until its oldest run leaves).
        local hold = 0
        if not allowed and not count_refused then
          for i = 1, n do
            local o = 10 * (i - 1)
            if S[o + 10] >= S[o + 7] then
              local f = full_for(o, i, now)
              if f > hold then
                hold = f
              end
            end
          end
        end
        out[on + 1], out[on + 2], out[on + 3] = result, now, hold
        on = on + 3
      else
        local binding, retry = 1, 0
        if allowed then
          local least = S[7] - S[10]
          for i = 2, n do
            local o = 10 * (i - 1)
            if S[o + 7] - S[o + 10] < least then
              least = S[o + 7] - S[o + 10]
              binding = i
            end
          end
        else
          for i = 1, n do
            local o = 10 * (i - 1)
            local excess = S[o + 10] - (S[o + 7] - permits)
            if excess > 0 then
              local wait = CAL[i] and S[o + 3] - now or wait_for(KEYS[k + i], o, excess, now)
              if wait > retry then
                retry = wait
                binding = i
              end
            end
          end
        end
        local o = 10 * (binding - 1)
        local remaining = S[o + 7] - S[o + 10]
        if remaining < 0 then
          remaining = 0
        end
        local reset = reset_after(o, binding, now)
        local hold = 0
        if not allowed and not count_refused and S[o + 10] >= S[o + 7] then
          hold = full_for(o, binding, now)
        end
        out[on + 1], out[on + 2], out[on + 3], out[on + 4], out[on + 5], out[on + 6], out[on + 7] =
          result, now, remaining, retry, reset, binding, hold
        on = on + 7
      end
    end
  end
  if bad then
    out[on + 1], out[on + 2], out[on + 3] = -1, now, bad
    on = on + 3
    if figures then
      out[on + 1], out[on + 2], out[on + 3], out[on + 4] = 0, 0, 0, 0
      on = on + 4
    end
  end
end
return out
