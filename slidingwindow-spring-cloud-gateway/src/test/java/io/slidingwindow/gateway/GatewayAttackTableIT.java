package io.slidingwindow.gateway;

import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import io.slidingwindow.testkit.redis.RedisServerProcess;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/** The attack table against a gateway route whose windows live in a real redis-server. */
class GatewayAttackTableIT {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(WayIn.named("gateway route on Redis", GatewayAttackTableIT::start));
  }

  private static WayIn start() {
    RedisServerProcess redis = RedisServerProcess.start();
    WayIn gateway;
    try {
      // a loaded machine must not time out into the failure policy, which decides alone
      gateway =
          AttackGateway.start(
              Map.of(
                  "slidingwindow.redis.uri",
                  redis.uri(),
                  "slidingwindow.redis.command-timeout",
                  "5s",
                  "slidingwindow.gateway.timeout",
                  "10s"));
    } catch (RuntimeException e) {
      redis.close();
      throw e;
    }
    return WayIn.of(
        gateway.port(),
        () -> {
          gateway.close();
          redis.close();
        });
  }
}
