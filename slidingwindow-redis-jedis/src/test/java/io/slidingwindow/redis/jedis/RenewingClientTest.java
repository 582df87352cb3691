package io.slidingwindow.redis.jedis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import redis.clients.jedis.DefaultJedisClientConfig;
import redis.clients.jedis.HostAndPort;
import redis.clients.jedis.UnifiedJedis;
import redis.clients.jedis.exceptions.JedisDataException;

/** When the client is built again: on READONLY, at most once per interval of a fake clock. */
class RenewingClientTest {

  @Test
  void readOnlyReply_buildsTheClientAgain_atMostOncePerInterval_andFailsTheCall() {
    long[] now = {7};
    List<UnifiedJedis> built = new ArrayList<>();
    RenewingClient client =
        new RenewingClient(
            () -> {
              // never connects: no command is sent through it here
              UnifiedJedis jedis =
                  JedisClients.standalone(
                      new HostAndPort("127.0.0.1", 1), DefaultJedisClientConfig.builder().build());
              built.add(jedis);
              return jedis;
            },
            () -> now[0]);
    assertThat(built).hasSize(1);
    assertThatThrownBy(
            () ->
                client.run(
                    c -> {
                      throw new JedisDataException("TRYAGAIN Multiple keys");
                    }))
        .hasMessageStartingWith("TRYAGAIN");
    assertThat(built).as("other error replies").hasSize(1);

    for (int i = 0; i < 3; i++) {
      assertThatThrownBy(
              () ->
                  client.run(
                      c -> {
                        throw new JedisDataException("READONLY You can't write against a replica");
                      }))
          .as("the call fails as it is")
          .hasMessageStartingWith("READONLY");
    }
    assertThat(built).as("once within the interval").hasSize(2);
    assertThat(client.current()).isSameAs(built.get(1));

    now[0] += RenewingClient.RENEW_INTERVAL_NANOS;
    assertThatThrownBy(
            () ->
                client.run(
                    c -> {
                      throw new JedisDataException("READONLY You can't write against a replica");
                    }))
        .hasMessageStartingWith("READONLY");
    assertThat(built).hasSize(3);
    client.close();
  }
}
