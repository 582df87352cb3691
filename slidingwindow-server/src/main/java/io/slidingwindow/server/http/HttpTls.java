package io.slidingwindow.server.http;

import io.netty.handler.ssl.ClientAuth;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.slidingwindow.server.settings.Settings;
import java.io.IOException;
import javax.net.ssl.SSLException;

/** The TLS of the HTTP ports, from the service's certificate, key and client CA files. */
public final class HttpTls {

  private HttpTls() {}

  /**
   * The server side of TLS, or null when TLS is off.
   *
   * @param clientCertificates whether to require a client certificate that chains to the client CA
   *     (when one is set)
   * @throws IOException if a file cannot be read or holds no certificate or PKCS#8 key
   */
  public static SslContext server(Settings.Tls tls, boolean clientCertificates) throws IOException {
    if (!tls.enabled()) {
      return null;
    }
    try {
      SslContextBuilder builder =
          SslContextBuilder.forServer(tls.cert().toFile(), tls.key().toFile());
      if (clientCertificates && tls.clientCa() != null) {
        builder.trustManager(tls.clientCa().toFile()).clientAuth(ClientAuth.REQUIRE);
      }
      return builder.build();
    } catch (SSLException | IllegalArgumentException e) {
      throw new IOException(
          "cannot use the TLS files " + tls.cert() + " and " + tls.key() + ": " + e.getMessage(),
          e);
    }
  }
}
