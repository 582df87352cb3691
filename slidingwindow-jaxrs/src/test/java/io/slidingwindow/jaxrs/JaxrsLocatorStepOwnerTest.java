package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;

import jakarta.ws.rs.DELETE;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.NotFoundException;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * A locator that returns a sub-resource with no method for the request (405, 406) beside a locator
 * of that sub-resource whose template would take the same step: the step was taken by the outer
 * locator, so the request is counted by the class it returned, never by the classes the inner
 * locator leads to. Jersey lists the returned sub-resource among the matched resources, RESTEasy
 * does not. Before, the innermost matched resource's locators were tried first, so on Jersey such a
 * request spent the permits of the class behind the locator it never ran.
 */
class JaxrsLocatorStepOwnerTest extends JaxrsServerCase {

  /** Looks a folder up by its token. */
  @Path("folders")
  public static class Folders {
    @Path("{token}")
    public Folder folder(@PathParam("token") String token) {
      return new Folder(lookUp(token));
    }
  }

  /** A folder, read by an unlimited method, whose files are looked up by a locator of one step. */
  public static class Folder {
    private final String token;

    Folder(String token) {
      this.token = token;
    }

    @GET
    @Produces(MediaType.TEXT_PLAIN)
    public String get() {
      return "folder " + token;
    }

    @Path("{file}")
    public File file(@PathParam("file") String file) {
      return new File(lookUp(file));
    }
  }

  /** A file whose deletion is limited to 3 an hour. */
  public static class File {
    private final String token;

    File(String token) {
      this.token = token;
    }

    @DELETE
    @Produces(MediaType.TEXT_PLAIN)
    @RateLimit(limits = "3/1h", name = "file-delete")
    public String delete() {
      return "deleted " + token;
    }
  }

  private static String lookUp(String token) {
    if (!token.startsWith("issued")) {
      throw new NotFoundException();
    }
    return token;
  }

  private int send(String method, String path, String... headers) {
    return Http.send(method, server.uri(path), headers).statusCode();
  }

  @ParameterizedTest
  @EnumSource(JaxrsServers.Implementation.class)
  void noMethodAfterOuterLocator_notCountedByTheInnerLocatorsClass(
      JaxrsServers.Implementation runtime) {
    server = JaxrsServers.start(runtime, List.of(new Folders(), feature()));

    assertThat(
            List.of(
                send("PATCH", "/folders/issued-1"),
                send("PATCH", "/folders/issued-1"),
                send("GET", "/folders/issued-1", "Accept", "image/png"),
                send("GET", "/folders/issued-1", "Accept", "image/png"),
                send("DELETE", "/folders/issued-1/issued-2")))
        .as("the folder's locator took the step, not the file's: File's 3/1h is left whole")
        .containsExactly(405, 405, 406, 406, 200);
    assertThat(
            List.of(
                send("GET", "/folders/issued-1/guess-1"),
                send("GET", "/folders/issued-1/guess-2"),
                send("DELETE", "/folders/issued-1/issued-2")))
        .as("guesses the file's locator looked up still spend File's 3/1h")
        .containsExactly(404, 404, 429);
  }
}
