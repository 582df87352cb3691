package io.slidingwindow.examples;

import io.slidingwindow.http.RequestKey;
import io.slidingwindow.servlet.ClientIpResolver;
import io.slidingwindow.servlet.KeyResolver;
import io.slidingwindow.spring.RateLimit;
import java.security.Principal;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.actuate.health.HealthEndpoint;
import org.springframework.boot.actuate.health.Status;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.web.context.WebServerInitializedEvent;
import org.springframework.context.annotation.Bean;
import org.springframework.context.event.EventListener;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * A small API behind sliding-window limits, in memory, with no setup. The rules live in {@code
 * application.yml}; one endpoint, {@code /api/status}, uses {@link RateLimit} instead. Start it and
 * call {@code /api/quotes} more than 5 times within 10 seconds to get a 429.
 */
@SpringBootApplication
public class DemoApplication {

  public static void main(String[] args) {
    SpringApplication.run(DemoApplication.class, args);
  }

  /** Prints where the API listens and how to see a limit at work. */
  @EventListener
  public void onStarted(WebServerInitializedEvent event) {
    if (event.getApplicationContext().getParent() == null) { // not the management server's
      String management =
          event.getApplicationContext().getEnvironment().getProperty("management.server.port");
      System.out.println(startupMessage(event.getWebServer().getPort(), management));
    }
  }

  /** The line printed on start; {@code managementPort} may be null. */
  static String startupMessage(int port, String managementPort) {
    String base = "http://localhost:" + port;
    return "\nslidingwindow demo API listening on "
        + base
        + "\n"
        + "try: for i in $(seq 7); do curl -s -o /dev/null -w '%{http_code} ' "
        + base
        + "/api/quotes; done; echo   # 200 x5, then 429\n"
        + "     curl -i "
        + base
        + "/api/quotes   # RateLimit-Policy, RateLimit, Retry-After\n"
        + (managementPort == null
            ? ""
            : "metrics and the dashboard: http://127.0.0.1:"
                + managementPort
                + "/actuator/slidingwindow/index.html (loopback only)\n");
  }

  /**
   * The key of a reports call (rule {@code reports}): the authenticated user if there is one, else
   * the API key if it is one this service issued, else the client address. A client chooses the
   * {@code X-Api-Key} it sends; keying on the header as sent would give every new value a fresh
   * quota, so unknown keys (and requests without one) all share the quota of their address. The key
   * sources are typed: an API key equal to some address ({@code X-Api-Key: 127.0.0.1}) is still not
   * that address.
   */
  @Bean
  KeyResolver apiKeyOrAddress(
      @Value("${demo.api-keys}") Set<String> issuedKeys, ClientIpResolver clientIp) {
    Set<String> issued = Set.copyOf(issuedKeys);
    return KeyResolver.typed(
        request -> {
          Principal user = request.getUserPrincipal();
          if (user != null && user.getName() != null) {
            return RequestKey.principal(user.getName());
          }
          String apiKey = request.getHeader("X-Api-Key");
          return apiKey != null && issued.contains(apiKey)
              ? RequestKey.custom(apiKey)
              : clientIp.key(request);
        });
  }

  /**
   * Health on the application port, as load balancers expect it there: the status alone (200 when
   * up, 503 otherwise), while the report with details, metrics and the rest of actuator stay on the
   * management port.
   */
  @RestController
  static class Health {

    private final HealthEndpoint health;

    Health(HealthEndpoint health) {
      this.health = health;
    }

    @GetMapping("/actuator/health")
    ResponseEntity<Map<String, String>> health() {
      Status status = health.health().getStatus();
      return ResponseEntity.status(status.equals(Status.UP) ? 200 : 503)
          .body(Map.of("status", status.getCode()));
    }
  }

  /** The endpoints. */
  @RestController
  static class Api {

    private static final List<String> QUOTES =
        List.of(
            "At most N in any interval of length W.",
            "A token bucket can let 2N through one window.",
            "Precision decides how late capacity comes back, never how much.");

    /** Rule {@code quotes}: 5 per 10 s and 20 per minute for each client address. */
    @GetMapping("/api/quotes")
    Map<String, String> quote() {
      return Map.of("quote", QUOTES.get(ThreadLocalRandom.current().nextInt(QUOTES.size())));
    }

    /**
     * Rules {@code product-per-client} (100 per 2 s, 400 per 10 s, 2000 per minute for each client
     * address) and {@code product}: the per-URL windows of a classic servlet-filter limiter, 500
     * per 2 s, 2000 per 10 s, 10000 per minute, for all clients together. The per-client rule comes
     * first, so that one client cannot spend everyone's budget.
     */
    @GetMapping("/v1/product/{id}")
    Map<String, String> product(@PathVariable("id") String id) {
      return Map.of("id", id, "name", "product " + id);
    }

    /** Rule {@code login}: 3 per minute per address, refused attempts counted (penalty mode). */
    @PostMapping("/api/login")
    Map<String, String> login() {
      return Map.of("result", "checked");
    }

    /**
     * Rule {@code search}: dry-run, so it only reports (headers, metrics, log) and never refuses.
     */
    @GetMapping("/api/search")
    Map<String, String> search() {
      return Map.of("results", "none yet");
    }

    /**
     * Rule {@code reports}, which sells plans: demo-key-1 is on plan free (5 per 10 s), demo-key-2
     * on pro (20 per 10 s), any other caller gets 2 per 10 s by address (see {@link
     * #apiKeyOrAddress}). Keying on the raw header would let a client pick its own quota.
     */
    @GetMapping({"/api/reports", "/api/reports/{id}"})
    Map<String, String> report(@PathVariable(name = "id", required = false) String id) {
      return Map.of("report", id == null ? "all" : id);
    }

    /**
     * Limited by annotation: 2 per 5 s per client address, to show {@link RateLimit} next to the
     * rules of {@code application.yml}.
     */
    @GetMapping("/api/status")
    @RateLimit(limits = "2/5s", key = "clientIp", name = "status")
    Map<String, String> status() {
      return Map.of("status", "up");
    }
  }
}
