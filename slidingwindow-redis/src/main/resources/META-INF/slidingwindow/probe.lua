-- slidingwindow health probe: runs one write, as the limiter's script does, on a key of its own.
--
-- A server that refuses it says why the limiter would fail: a read-only replica (READONLY), no
-- scripting (unknown or disabled EVAL/EVALSHA), missing or wrong credentials (NOAUTH, WRONGPASS),
-- missing ACL rights (NOPERM). PEXPIRE of a key that does not exist writes nothing.
--
-- KEYS[1]  the probe key, in the library's key space (never holds data)
-- ARGV     none
--
-- Returns  {1}

redis.call('PEXPIRE', KEYS[1], 1)
return {1}
