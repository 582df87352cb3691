package io.slidingwindow.gateway;

import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/** The attack table against a gateway route, its windows in memory. */
class AttackTableTest {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("gateway route in memory", () -> AttackGateway.start(Map.of())));
  }
}
