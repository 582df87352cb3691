package io.slidingwindow.jaxrs;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * The resources of the tests, one instance per server, recording which method each call reached.
 */
@Path("/")
@Produces(MediaType.TEXT_PLAIN)
public class Api {

  final ConcurrentLinkedQueue<String> served = new ConcurrentLinkedQueue<>();

  @GET
  @Path("v1/product/{id}")
  public String product(@PathParam("id") String id) {
    served.add("product");
    return "product " + id;
  }

  @GET
  @Path("v1/product")
  public String products() {
    served.add("product");
    return "products";
  }

  @GET
  @Path("login")
  public Response login(@QueryParam("password") String password) {
    served.add("login");
    return "secret".equals(password)
        ? Response.ok("welcome").build()
        : Response.status(Response.Status.UNAUTHORIZED).entity("wrong password").build();
  }

  @GET
  @Path("v1/admin")
  public String admin() {
    served.add("admin");
    return "admin";
  }

  @GET
  @Path("hello")
  @RateLimit(limits = "2/10s")
  public String hello() {
    served.add("hello");
    return "hello";
  }

  @GET
  @Path("items/{id}")
  @RateLimit(limits = "2/10s", key = "header:X-Api-Key", name = "items")
  public String item(@PathParam("id") String id) {
    served.add("items");
    return "item " + id;
  }

  @GET
  @Path("reports/{id}")
  @RateLimit(limits = "2/10s", key = "resolver:issued")
  public String report(@PathParam("id") String id) {
    served.add("reports");
    return "report " + id;
  }

  @GET
  @Path("search")
  @RateLimit(limits = "1/10s", dryRun = true)
  public String search() {
    served.add("search");
    return "search";
  }
}
