package io.slidingwindow.grpc;

import io.slidingwindow.http.ClientAddresses;
import java.util.List;

/** Client address rules for tests. */
final class ClientAddressesFor {

  private ClientAddressesFor() {}

  static ClientAddresses direct() {
    return ClientAddresses.direct();
  }

  static ClientAddresses behindLoopbackProxy() {
    return ClientAddresses.trusting(List.of("127.0.0.1"));
  }
}
