package io.slidingwindow.servlet;

import io.slidingwindow.Limit;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.RequestKey;
import io.slidingwindow.testkit.http.AttackTable;
import io.slidingwindow.testkit.http.WayIn;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.TestFactory;

/** The attack table against the servlet filter, on Tomcat, Jetty and Undertow, each as shipped. */
class AttackTableTest {

  @TestFactory
  Stream<DynamicNode> attackTable() {
    return AttackTable.against(
        WayIn.named("servlet filter on Tomcat", AttackTableTest::tomcat),
        WayIn.named("servlet filter on Jetty", AttackTableTest::jetty),
        WayIn.named("servlet filter on Undertow", AttackTableTest::undertow));
  }

  /** The filter with the table's three rules, trusting the table's proxy. */
  static RateLimitFilter filter() {
    ClientIpResolver clientIp = ClientIpResolver.trusting(List.of(AttackTable.TRUSTED_PROXY));
    Limit limit = Limit.parse(AttackTable.LIMIT);
    KeyResolver issuedOrAddress =
        KeyResolver.typed(
            request ->
                AttackTable.ISSUED_KEY.equals(request.getHeader(AttackTable.API_KEY))
                    ? RequestKey.custom(AttackTable.ISSUED_KEY)
                    : clientIp.key(request));
    KeyResolver faulty = request -> AttackTable.faultyKey(request::getHeader);
    return new RateLimitFilter(
        RateLimitEnforcer.builder()
            .rule(
                HttpRule.builder("limited").path(AttackTable.LIMITED + "/**").limit(limit).build(),
                issuedOrAddress)
            .rule(
                HttpRule.builder("raw").path(AttackTable.RAW + "/**").limit(limit).build(),
                KeyResolver.header(AttackTable.API_KEY, clientIp))
            .rule(
                HttpRule.builder("faulty").path(AttackTable.FAULTY + "/**").limit(limit).build(),
                faulty)
            .clientIp(clientIp)
            .build());
  }

  /**
   * Answers the table's marker below its three paths, as the container reads the path; else 404.
   */
  static final class Handler extends HttpServlet {
    private static final long serialVersionUID = 1L;

    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response)
        throws IOException {
      String path =
          request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
      for (String prefix : List.of(AttackTable.LIMITED, AttackTable.RAW, AttackTable.FAULTY)) {
        if (path.startsWith(prefix + "/")) {
          response.setContentType("text/plain");
          response.getWriter().write(AttackTable.MARKER);
          return;
        }
      }
      response.sendError(404);
    }
  }

  static WayIn tomcat() {
    try {
      EmbeddedTomcat tomcat =
          new EmbeddedTomcat(
              filter(), new Handler(), false, "", Files.createTempDirectory("attack-tomcat"));
      return WayIn.of(tomcat.port(), () -> stop(tomcat));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static WayIn jetty() {
    try {
      EmbeddedJetty jetty = new EmbeddedJetty(filter(), new Handler(), false);
      return WayIn.of(jetty.port(), () -> stop(jetty));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  static WayIn undertow() {
    try {
      EmbeddedUndertow undertow = new EmbeddedUndertow(filter(), new Handler(), false);
      return WayIn.of(undertow.port(), () -> stop(undertow));
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void stop(AutoCloseable server) {
    try {
      server.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }
}
