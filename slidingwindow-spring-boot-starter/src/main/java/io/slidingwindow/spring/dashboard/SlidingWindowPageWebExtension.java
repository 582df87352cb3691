package io.slidingwindow.spring.dashboard;

import io.slidingwindow.dashboard.DashboardPage;
import java.util.Optional;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;
import org.springframework.boot.actuate.endpoint.annotation.Selector;
import org.springframework.boot.actuate.endpoint.web.WebEndpointResponse;
import org.springframework.boot.actuate.endpoint.web.annotation.EndpointWebExtension;
import org.springframework.core.io.ByteArrayResource;
import org.springframework.core.io.Resource;
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
 * <p>The page's Content-Security-Policy travels in the page itself (a {@code meta} element), since
 * an endpoint operation cannot set response headers.
 */
@EndpointWebExtension(endpoint = SlidingWindowEndpoint.class)
public class SlidingWindowPageWebExtension {

  /** The name of the page under the endpoint's path. */
  public static final String PAGE = "index.html";

  /** The folder, under the endpoint's path, of the page's script and style. */
  public static final String FOLDER = "dashboard";

  private final DashboardPage files;
  private final DashboardPage.File page;

  /**
   * Serves the page polling the feed at {@code feedUrl}, relative to the page.
   *
   * @param feedUrl the feed's URL relative to {@code .../index.html}, for example {@code
   *     "../slidingwindow"}
   * @throws IllegalArgumentException if {@code feedUrl} is blank
   * @throws IllegalStateException if the page's files are missing from the class path
   */
  public SlidingWindowPageWebExtension(String feedUrl) {
    this.files = DashboardPage.load();
    this.page = files.page(feedUrl);
  }

  /** The page, for {@code name} {@code "index.html"}; 404 for any other name. */
  @ReadOperation(produces = "text/html")
  public WebEndpointResponse<Resource> page(@Selector String name) {
    return answer(PAGE.equals(name) ? Optional.of(page) : Optional.empty());
  }

  /** One of the page's files, for {@code folder} {@code "dashboard"}; 404 for any other name. */
  @ReadOperation(produces = {"text/javascript", "text/css"})
  public WebEndpointResponse<Resource> file(@Selector String folder, @Selector String name) {
    return answer(FOLDER.equals(folder) ? files.file(name) : Optional.empty());
  }

  private static WebEndpointResponse<Resource> answer(Optional<DashboardPage.File> file) {
    if (file.isEmpty()) {
      return new WebEndpointResponse<>(WebEndpointResponse.STATUS_NOT_FOUND);
    }
    return new WebEndpointResponse<>(
        new ByteArrayResource(file.get().bytes()),
        WebEndpointResponse.STATUS_OK,
        MimeType.valueOf(file.get().contentType()));
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
