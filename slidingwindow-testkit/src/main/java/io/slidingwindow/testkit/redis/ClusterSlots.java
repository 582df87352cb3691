package io.slidingwindow.testkit.redis;

import java.nio.charset.StandardCharsets;

/**
 * The Redis Cluster hash slot of a key, as every node computes it: CRC16 (XMODEM) of the key's hash
 * tag, the part between the first {@code '{'} and the next {@code '}'} when that part is not empty,
 * else of the whole key, modulo 16384; the key taken as UTF-8. For tests that place ids on chosen
 * masters without a client library. Stateless.
 */
public final class ClusterSlots {

  /** How many slots a Cluster has. */
  public static final int SLOTS = 16384;

  private ClusterSlots() {}

  /** The slot of {@code key}. */
  public static int slot(String key) {
    byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
    int from = 0;
    int to = bytes.length;
    int open = indexOf(bytes, (byte) '{', 0);
    if (open >= 0) {
      int close = indexOf(bytes, (byte) '}', open + 1);
      if (close > open + 1) {
        from = open + 1;
        to = close;
      }
    }
    return crc16(bytes, from, to) % SLOTS;
  }

  private static int indexOf(byte[] bytes, byte b, int from) {
    for (int i = from; i < bytes.length; i++) {
      if (bytes[i] == b) {
        return i;
      }
    }
    return -1;
  }

  /** CRC16-CCITT as XMODEM computes it: polynomial 0x1021, initial value 0. */
  static int crc16(byte[] bytes, int from, int to) {
    int crc = 0;
    for (int i = from; i < to; i++) {
      crc ^= (bytes[i] & 0xff) << 8;
      for (int bit = 0; bit < 8; bit++) {
        crc = (crc & 0x8000) != 0 ? (crc << 1) ^ 0x1021 : crc << 1;
      }
      crc &= 0xffff;
    }
    return crc;
  }
}
