package io.slidingwindow;

/**
 * What a keyed limiter does with a request for a new key that it has no room to track.
 *
 * <p><b>Design.</b> The in-process limiter tracks at most {@code maxKeys} keys, and at most {@code
 * maxKeysPerGroup} keys of one group when the caller names the key's group ({@link
 * KeyedRateLimiter#decide(Object, Object, long)}; in HTTP the group is the client address that
 * presents the key, and a key equal to its group, the address's own key, is not counted against
 * it). A key leaves the table only once its windows count no permit, which forgets nothing: it is
 * never evicted to make room, since forgetting a live key's grants would let it past its limit. A
 * new key is tracked when the table and its group have room; an empty key is evicted first if that
 * makes room (a new key examines two tracked keys, and one that finds the table full 16 more,
 * continuing round-robin, so the work per request stays bounded and a key can be refused while an
 * empty key it did not reach is still tracked; {@link KeyedRateLimiter#cleanUp()} evicts every
 * empty key at once). Otherwise the request is answered by this policy, with a {@link Decision}
 * whose {@link Decision#isKeyOverflow()} is true.
 *
 * <p><b>Guarantee.</b> Under {@link #REFUSE}, the default, no key is ever granted more than its
 * limits, full table or not: every grant is counted in the windows of the key it was granted to.
 * And a flood of new keys from a few groups cannot lock others out: keys of {@code g} groups hold
 * at most {@code g * (maxKeysPerGroup + 1)} places, so groups fewer than {@code maxKeys /
 * (maxKeysPerGroup + 1)} can never fill the table; once a flooding group is full, only its own new
 * keys are refused, while its address key and every other group's new keys are still tracked. With
 * the defaults ({@code maxKeys} 100 000, {@code maxKeysPerGroup} one hundredth of it) that takes
 * more than 99 flooding addresses. What this does not stop: many groups (an attacker with many
 * addresses or IPv6 prefixes) can still fill the table, and then new keys of every group are
 * refused until room is found; {@link #ALLOW_UNTRACKED} trades that for uncounted grants.
 *
 * <p>The rate limit service and the Redis limiters keep no key table and never overflow.
 */
public enum KeyOverflow {

  /**
   * Refuse the request (the default). Tracked keys keep their guarantee; new keys are refused until
   * room is found. The refusal's {@link Decision#retryAfter()} is only a hint, and may be early:
   * the longest window, after which every tracked key that got no more traffic can be evicted.
   */
  REFUSE,

  /**
   * Grant the request without counting it. The service stays open to new keys, but they are not
   * limited while there is no room: choose this only when over-admitting them is acceptable. The
   * decision reports {@code remaining = 0}, since nothing is known of the key.
   */
  ALLOW_UNTRACKED
}
