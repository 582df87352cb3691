package io.slidingwindow.jaxrs;

import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.HttpReply;
import io.slidingwindow.http.HttpRule;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RequestPaths;
import io.slidingwindow.http.Settlement;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ContainerResponseContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import jakarta.ws.rs.core.UriInfo;
import jakarta.ws.rs.ext.InterceptorContext;
import java.lang.annotation.Annotation;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the JAX-RS filters read from a request and write to it: its path readings, the headers and
 * {@code Retry-After} bound that every rule deciding it shares, and the answer. Stateless.
 */
final class JaxrsExchange {

  private static final String REPORT = JaxrsExchange.class.getName() + ".report";
  private static final String HEADERS = JaxrsExchange.class.getName() + ".headers";
  private static final String SETTLEMENT = JaxrsExchange.class.getName() + ".settlement";
  private static final String ANSWER = JaxrsExchange.class.getName() + ".answer";

  private static final System.Logger LOG = System.getLogger(RateLimitFilter.class.getName());

  private static final String REFUND_ERROR =
      "slidingwindow: a limiter threw an Error giving a reservation back (every rule's refund was"
          + " asked for; that rule's permits stay counted); the request's answer goes on";

  /**
   * The headers of an answer that a refusal replaces which it drops: they describe that answer's
   * body or freshness, point elsewhere, ask for credentials or set cookies, none of which a 429
   * means (a failed login's cookie is not sent with the refusal of the next try). The map of
   * headers is case-insensitive on both runtimes.
   */
  private static final List<String> REPLACED =
      List.of(
          HttpHeaders.CONTENT_LENGTH,
          HttpHeaders.CONTENT_ENCODING,
          HttpHeaders.CONTENT_LANGUAGE,
          HttpHeaders.CONTENT_LOCATION,
          HttpHeaders.CONTENT_DISPOSITION,
          "Content-Range",
          HttpHeaders.ETAG,
          HttpHeaders.LAST_MODIFIED,
          HttpHeaders.EXPIRES,
          HttpHeaders.CACHE_CONTROL,
          HttpHeaders.LOCATION,
          HttpHeaders.ALLOW,
          "Accept-Ranges",
          HttpHeaders.WWW_AUTHENTICATE,
          "Proxy-Authenticate",
          HttpHeaders.SET_COOKIE);

  private JaxrsExchange() {}

  /** The request target's path as received, not decoded, without the query. */
  static String rawPath(ContainerRequestContext request) {
    String raw = request.getUriInfo().getRequestUri().getRawPath();
    return raw == null || raw.isEmpty() ? "/" : raw;
  }

  /**
   * Every reading of the request's path within the application (below the base URI) that a rule is
   * matched against: the runtime's decoded path, then the raw path's (see {@link RequestPaths}).
   */
  static List<String> paths(ContainerRequestContext request) {
    UriInfo uri = request.getUriInfo();
    String decoded;
    try {
      decoded = uri.getPath(true);
      decoded = decoded.startsWith("/") ? decoded : "/" + decoded;
    } catch (RuntimeException e) {
      decoded = null; // a runtime that will not decode an ambiguous path
    }
    String base = uri.getBaseUri().getRawPath();
    if (base != null && base.endsWith("/")) {
      base = base.substring(0, base.length() - 1);
    }
    return RequestPaths.readings(decoded, rawPath(request), base);
  }

  /**
   * The headers found so far for {@code request}, kept as a request property so that the filter's
   * rules and an annotated method's rule report together.
   */
  static QuotaHeaders report(ContainerRequestContext request) {
    if (request.getProperty(REPORT) instanceof QuotaHeaders report) {
      return report;
    }
    QuotaHeaders report = new QuotaHeaders();
    request.setProperty(REPORT, report);
    return report;
  }

  /**
   * Lets {@code request} through with the headers of {@code outcome}, or ends it with its refusal.
   */
  static void apply(ContainerRequestContext request, EnforcementCore.Outcome outcome) {
    apply(request, outcome, reply -> refuse(request, reply));
  }

  /**
   * Lets {@code request} through with the headers of {@code outcome}, or ends it through {@code
   * end} with its refusal.
   */
  static void apply(
      ContainerRequestContext request, EnforcementCore.Outcome outcome, Consumer<HttpReply> end) {
    Settlement settlement = outcome.settlement();
    if (!settlement.isEmpty()) {
      Settlement held =
          request.getProperty(SETTLEMENT) instanceof Settlement s ? s : Settlement.none();
      request.setProperty(SETTLEMENT, held.and(settlement));
    }
    if (outcome.allowed()) {
      pass(request, outcome.headers());
    } else {
      end.accept(outcome.refusal());
    }
  }

  /** Ends {@code request} with {@code reply}, without the headers of earlier grants. */
  static void refuse(ContainerRequestContext request, HttpReply reply) {
    request.removeProperty(HEADERS);
    Response.ResponseBuilder response =
        Response.status(reply.status())
            .type(reply.contentType() + ";charset=UTF-8")
            .entity(reply.body());
    reply.headers().forEach(response::header);
    request.abortWith(response.build());
  }

  /**
   * Turns {@code response}, the answer of a filter that ended {@code request} before the rules
   * decided it, into {@code reply}, without the headers of earlier grants and without those of
   * {@link #REPLACED}, which belong to the answer replaced; other headers (a trace id, {@code
   * Vary}, those that response filters that ran before added) stay.
   */
  static void refuse(
      ContainerRequestContext request, ContainerResponseContext response, HttpReply reply) {
    request.removeProperty(HEADERS);
    response.setStatus(reply.status());
    REPLACED.forEach(response.getHeaders()::remove);
    reply.headers().forEach(response.getHeaders()::putSingle);
    response.setEntity(
        reply.body(),
        new Annotation[0],
        MediaType.valueOf(reply.contentType()).withCharset(StandardCharsets.UTF_8.name()));
  }

  /** Notes the headers of a grant, to set on the response. */
  private static void pass(ContainerRequestContext request, Map<String, String> headers) {
    if (!headers.isEmpty()) {
      request.setProperty(HEADERS, new LinkedHashMap<>(headers));
    }
  }

  /**
   * Sets the headers of the grants of {@code request}, if any, on its response, and settles the
   * permits its rules that count only some answers reserved ({@link HttpRule#countStatuses()}) with
   * the response's final status: response filters run after the exception mappers, so that is the
   * application's answer (a refusal's 429 included). An answer without an entity is settled here;
   * one with an entity once the entity is written ({@link #written}), with the status the answer
   * has then (after every response filter): an entity that fails to be written before the answer is
   * committed (a {@code StreamingOutput} that throws {@code NotAuthorizedException}) is answered by
   * the exception's mapper, whose answer the response filters see again and which is the one
   * settled; one that fails after the answer is committed, or whose client went away, is never
   * settled and stays counted. An exception that no mapper answers never reaches a response filter,
   * and its request stays counted. The first filter to answer settles every rule's reservation,
   * once.
   */
  static void answer(ContainerRequestContext request, ContainerResponseContext response) {
    answer(request, response, true);
  }

  /**
   * As {@link #answer(ContainerRequestContext, ContainerResponseContext)}, but an answer with an
   * entity is settled here too, at once, unless {@code settleOnWrite}: the filter whose writer
   * interceptor would settle it was never configured as a {@code Feature}, so none was registered
   * (the status is the one the answer has before the other response filters and the writing).
   */
  static void answer(
      ContainerRequestContext request, ContainerResponseContext response, boolean settleOnWrite) {
    if (request.getProperty(HEADERS) instanceof Map<?, ?> headers) {
      headers.forEach((name, value) -> response.getHeaders().putSingle((String) name, value));
    }
    if (request.getProperty(SETTLEMENT) instanceof Settlement settlement) {
      if (settleOnWrite && response.hasEntity()) {
        request.setProperty(ANSWER, response);
      } else {
        request.removeProperty(SETTLEMENT);
        request.removeProperty(ANSWER);
        settle(settlement, response.getStatus());
      }
    }
  }

  /**
   * Settles the reservations of the request whose answer's entity {@code context} has just written
   * without failing, with that answer's status; nothing if it has none to settle.
   */
  static void written(InterceptorContext context) {
    if (context.getProperty(ANSWER) instanceof ContainerResponseContext response
        && context.getProperty(SETTLEMENT) instanceof Settlement settlement) {
      context.removeProperty(SETTLEMENT);
      context.removeProperty(ANSWER);
      settle(settlement, response.getStatus());
    }
  }

  /**
   * Settles {@code settlement} with {@code status}. A backend whose refund throws an {@link Error}
   * (a class of its client that failed to load) does so once every other rule's refund was asked
   * for; it is logged at ERROR and goes no further: thrown from a response filter, it would keep
   * the response filters after this one from running (those that count on its response a request
   * another filter ended, {@link MethodRateLimitFilter}, and one that ran a sub-resource locator,
   * {@link LocatorCount}), and the runtime would answer 500 in place of the application's answer;
   * thrown once the entity was written, it would fail an answer that was given. The permits of that
   * rule stay counted, which never grants more.
   */
  private static void settle(Settlement settlement, int status) {
    try {
      settlement.settle(status);
    } catch (Error e) {
      LOG.log(System.Logger.Level.ERROR, REFUND_ERROR, e);
    }
  }
}
