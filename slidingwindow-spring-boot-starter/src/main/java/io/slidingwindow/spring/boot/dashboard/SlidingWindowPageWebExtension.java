package io.slidingwindow.spring.boot.dashboard;

import io.slidingwindow.dashboard.DashboardPage;
import java.util.Optional;
import java.util.stream.Stream;
import org.springframework.boot.actuate.endpoint.annotation.DeleteOperation;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.annotation.WriteOperation;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.util.MimeType;

/**
 * The dashboard page over HTTP, next to the {@code slidingwindow} endpoint's feed: {@code GET
 * /actuator/slidingwindow/index.html} answers the page ({@link DashboardPage}), which loads its
 * script and style from {@code /actuator/slidingwindow/dashboard/}<i>name</i> and polls {@code GET
 * /actuator/slidingwindow}. Being operations of the endpoint, they follow its exposure, the
 * management base path and port, and whatever security guards the management endpoints. Names
 * outside {@link DashboardPage#FILES} (and {@code index.html}) answer 404; no name reaches the file
 * system or any other class path resource.
 *
 * <p>It also serves the quota operations of {@code SlidingWindowQuotas}: {@code GET
 * /actuator/slidingwindow/{rule}/{key}} (what is left, nothing taken) and {@code DELETE} on the
 * same path (reset). Both share the path of the page's files, {@code dashboard/NAME}, so a rule
 * named {@code dashboard} is not reachable here.
 *
 * <p>And the plan operations of {@code SlidingWindowPlans}: {@code GET
 * /actuator/slidingwindow/{rule}} (the rule's plans and the limits in service; a rule named {@code
 * index.html} is the page instead), {@code GET /actuator/slidingwindow/{rule}/plans/{plan}} (one
 * plan) and {@code POST} on that path with {@code {"limits":"8/10s"}}, a run-time change of the
 * plan's limits that keeps every key's counts.
 *
 * <p>A request that a web page may have sent (one carrying {@code Origin} or {@code
 * Sec-Fetch-Site}) reaches neither these operations nor the feed unless it comes from the
 * endpoint's own origin at {@code localhost} or an IP address, or from an origin the actuator's
 * CORS properties allow; nor does a read at a host name that those properties do not allow, since a
 * rebound page's read carries neither header: a filter of {@link
 * SlidingWindowEndpointManagementConfiguration} answers them 403 first ({@code BrowserGuard}). The
 * page and its files are served to anyone.
 *
 * <p>The page's Content-Security-Policy travels in the page itself (a {@code meta} element), since
 * an endpoint operation cannot set response headers.
 *
 * <p>A bean of {@link SlidingWindowEndpointAutoConfiguration}; an application's own bean of this
 * type (such as {@code new SlidingWindowPageWebExtension(feedUrl)}, the page without the quota and
 * plan operations) takes its place.
 */
@EndpointWebExtension(endpoint = SlidingWindowEndpoint.class)
public class SlidingWindowPageWebExtension {

  /** The name of the page under the endpoint's path. */
  public static final String PAGE = "index.html";

  /** The folder, under the endpoint's path, of the page's script and style. */
  public static final String FOLDER = "dashboard";

  /** The folder, under a rule's path, of its plans. */
  public static final String PLANS = "plans";

  private final DashboardPage files;
  private final DashboardPage.File page;
  private final SlidingWindowQuotas quotas;
  private final SlidingWindowPlans plans;

  /**
   * Serves the page polling the feed at {@code feedUrl}, relative to the page, and no rule's quota.
   *
   * @param feedUrl the feed's URL relative to {@code .../index.html}, for example {@code
   *     "../slidingwindow"}
   * @throws IllegalArgumentException if {@code feedUrl} is blank
   * @throws IllegalStateException if the page's files are missing from the class path
   */
  public SlidingWindowPageWebExtension(String feedUrl) {
    this(feedUrl, new SlidingWindowQuotas(Stream::empty));
  }

  /**
   * Serves the page polling the feed at {@code feedUrl}, relative to the page, and the quota
   * operations of {@code quotas}.
   *
   * @throws IllegalArgumentException if {@code feedUrl} is blank
   * @throws IllegalStateException if the page's files are missing from the class path
   */
  SlidingWindowPageWebExtension(String feedUrl, SlidingWindowQuotas quotas) {
    this(feedUrl, quotas, new SlidingWindowPlans(Stream::empty));
  }

  /**
   * Serves the page polling the feed at {@code feedUrl}, relative to the page, the quota operations
   * of {@code quotas} and the plan operations of {@code plans}.
   *
   * @throws IllegalArgumentException if {@code feedUrl} is blank
   * @throws IllegalStateException if the page's files are missing from the class path
   */
  SlidingWindowPageWebExtension(
      String feedUrl, SlidingWindowQuotas quotas, SlidingWindowPlans plans) {
    this.files = DashboardPage.load();
    this.page = files.page(feedUrl);
    this.quotas = quotas;
    this.plans = plans;
  }

  /**
   * The page, for {@code name} {@code "index.html"}; else the plans of rule {@code name} ({@code
   * SlidingWindowPlans.plans}).
   */
  @ReadOperation(produces = {"text/html", "application/json"})
  public WebEndpointResponse<Object> page(@Selector String name) {
    if (PAGE.equals(name)) {
      return answer(Optional.of(page));
    }
    return json(plans.plans(name));
  }

  /**
   * Plan {@code plan} of rule {@code rule} ({@code SlidingWindowPlans.plan}), for {@code folder}
   * {@code "plans"}; 404 for any other.
   */
  @ReadOperation(produces = "application/json")
  public WebEndpointResponse<Object> plan(
      @Selector String rule, @Selector String folder, @Selector String plan) {
    if (!PLANS.equals(folder)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return json(plans.plan(rule, plan));
  }

  /**
   * Puts {@code limits} in service for plan {@code plan} of rule {@code rule}, keeping every key's
   * counts ({@code SlidingWindowPlans.change}), for {@code folder} {@code "plans"}; 404 for any
   * other.
   *
   * @param limits the request's {@code limits}, such as {@code "8/10s"} or {@code "8/10s, 100/1h"}
   */
  @WriteOperation(produces = "application/json")
  public WebEndpointResponse<Object> changePlan(
      @Selector String rule, @Selector String folder, @Selector String plan, String limits) {
    if (!PLANS.equals(folder)) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return json(plans.change(rule, plan, limits));
  }

  /**
   * One of the page's files, for {@code first} {@code "dashboard"} (404 for a name that is none);
   * else what is left of key {@code second} in rule {@code first} ({@code
   * SlidingWindowQuotas.peek}).
   */
  @ReadOperation(produces = {"application/json", "text/javascript", "text/css"})
  public WebEndpointResponse<Object> file(@Selector String first, @Selector String second) {
    if (FOLDER.equals(first)) {
      return answer(files.file(second));
    }
    return json(quotas.peek(first, second));
  }

  /** Resets key {@code key} in rule {@code rule} ({@code SlidingWindowQuotas.reset}). */
  @DeleteOperation(produces = "application/json")
  public WebEndpointResponse<Object> reset(@Selector String rule, @Selector String key) {
    return json(quotas.reset(rule, key));
  }

  private static WebEndpointResponse<Object> json(SlidingWindowQuotas.Answer answer) {
    return new WebEndpointResponse<>(
        answer.body(), answer.status(), MimeType.valueOf("application/json"));
  }

  private static <T> WebEndpointResponse<T> answer(Optional<DashboardPage.File> file) {
    if (file.isEmpty()) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    @SuppressWarnings("unchecked") // a Resource, answered as the operation's body type
    T body = (T) new ByteArrayResource(file.get().bytes());
    return new WebEndpointResponse<>(
        body, WebEndpointResponse.STATUS_OK, MimeType.valueOf(file.get().contentType()));
  }

  /**
   * The feed's URL relative to the page, for the endpoint mapped to {@code path} ({@code
   * management.endpoints.web.path-mapping.slidingwindow}, {@code "slidingwindow"} by default).
   */
  static String feedUrl(String path) {
    String trimmed = path.replaceAll("^/+|/+$", "");
    String last = trimmed.substring(trimmed.lastIndexOf('/') + 1);
    return "../" + (last.isEmpty() ? SlidingWindowEndpoint.ID : last);
  }
}
