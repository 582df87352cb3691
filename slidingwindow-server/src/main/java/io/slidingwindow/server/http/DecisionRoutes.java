package io.slidingwindow.server.http;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.ByteArrayBuilder;
import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import io.netty.buffer.ByteBufInputStream;
import io.slidingwindow.server.decide.Decider;
import io.slidingwindow.server.decide.DecisionEvents;
import io.slidingwindow.server.decide.DecisionRequest;
import io.slidingwindow.server.decide.Decisions.BadRequest;
import io.slidingwindow.server.decide.Decisions.Code;
import io.slidingwindow.server.decide.Decisions.Status;
import io.slidingwindow.server.decide.Decisions.Verdict;
import io.slidingwindow.server.decide.ServiceHealth;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.grpc.EnvoyResponses;
import io.slidingwindow.server.grpc.ProtobufRequest;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.System.Logger.Level;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import java.util.function.Function;

/**
 * The decision port's HTTP endpoints, and nothing else (no admin path answers here):
 *
 * <ul>
 *   <li>{@code POST /v1/decide}: a JSON request (see {@link JsonRequest}); 200 when allowed, 429
 *       when over limit, with the statuses as JSON.
 *   <li>{@code POST /json}: envoyproxy/ratelimit's endpoint: a {@code RateLimitRequest} in
 *       protobuf's JSON mapping, answered with a {@code RateLimitResponse} the same way.
 *   <li>{@code GET /healthcheck}: readiness, 200 {@code OK} or 503 {@code NOT_SERVING}.
 *   <li>{@code GET /livez}: liveness, 200 {@code OK} while the process serves, whatever Redis does.
 * </ul>
 *
 * <p>Both decision endpoints refuse a request that carries {@code Origin} or {@code Sec-Fetch-Site}
 * headers ({@link BrowserRequests}: 403, counted) and take only a body declared {@code
 * application/json} ({@link JsonContentType}: else 415, counted), so that a web page cannot make a
 * browser spend a budget, whatever its origin or host name; they read the body as strict UTF-8 (400
 * for malformed bytes, which would otherwise turn different values into one) and as strict JSON (a
 * field twice in one object, text after the document, and on {@code /v1/decide} a field it does not
 * know are malformed), answer 400 for malformed JSON or a malformed request and 404 for an unknown
 * domain, each with {@code {"error": "..."}} and counted. In memory they decide on the event loop;
 * on Redis they answer when Redis (or the failure policy) does.
 */
public final class DecisionRoutes {

  private static final System.Logger LOG = System.getLogger(DecisionRoutes.class.getName());

  private final Decider decider;
  private final DecisionEvents events;

  private DecisionRoutes(Decider decider, DecisionEvents events) {
    this.decider = decider;
    this.events = events;
  }

  /** The decision port's router. */
  public static Router router(Decider decider, DecisionEvents events, ServiceHealth health) {
    DecisionRoutes routes = new DecisionRoutes(decider, events);
    return new Router(null)
        .add("POST", "/v1/decide", routes::decide)
        .add("POST", "/json", routes::envoyJson)
        .add(
            "GET",
            "/healthcheck",
            e -> {
              if (health.ready()) {
                e.respond(200, "text/plain", "OK");
              } else {
                e.respond(503, "text/plain", "NOT_SERVING");
              }
            })
        .add("GET", "/livez", e -> e.respond(200, "text/plain", "OK"));
  }

  private void decide(Exchange exchange) {
    long start = System.nanoTime();
    if (!declaredJson(exchange)) {
      return;
    }
    JsonNode body = readJson(exchange);
    if (body == null) {
      return;
    }
    DecisionRequest request;
    try {
      request = JsonRequest.read(body);
    } catch (BadRequest e) {
      refuse(exchange, e);
      return;
    }
    answer(exchange, request, start, DecisionRoutes::decideAnswer);
  }

  private void envoyJson(Exchange exchange) {
    long start = System.nanoTime();
    if (!declaredJson(exchange)) {
      return;
    }
    String text = readText(exchange);
    if (text == null) {
      return;
    }
    try (JsonParser parser = Json.mapper().createParser(text)) {
      // protobuf's reader takes the last of two same fields and ignores what follows the object;
      // one streaming pass of the strict reader, which builds nothing, refuses both first, and a
      // field named in both of protobuf's spellings (hits_addend and hitsAddend).
      if (parser.nextToken() != null) {
        onceEach(parser);
      }
      if (parser.nextToken() != null) {
        throw new JsonParseException(parser, "text after the object");
      }
    } catch (JsonProcessingException e) {
      events.refused(DecisionEvents.HTTP, "malformed_json");
      exchange.fail(400, "not a RateLimitRequest in JSON: " + e.getOriginalMessage());
      return;
    } catch (IOException e) {
      throw new UncheckedIOException(e); // a String is read in memory
    }
    RateLimitRequest.Builder request = RateLimitRequest.newBuilder();
    try {
      JsonFormat.parser().merge(text, request);
    } catch (InvalidProtocolBufferException | RuntimeException e) {
      events.refused(DecisionEvents.HTTP, "malformed_json");
      exchange.fail(400, "not a RateLimitRequest in JSON: " + e.getMessage());
      return;
    }
    RateLimitRequest parsed = request.build();
    try {
      checkText(parsed);
    } catch (BadRequest e) {
      refuse(exchange, e);
      return;
    }
    answer(
        exchange,
        new ProtobufRequest(parsed),
        start,
        verdict -> {
          try {
            return JsonFormat.printer()
                .print(EnvoyResponses.of(verdict))
                .getBytes(StandardCharsets.UTF_8);
          } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a RateLimitResponse prints as JSON", e);
          }
        });
  }

  /**
   * Reads the value at {@code parser}'s token to its end, refusing an object that names a field
   * twice in protobuf's two spellings of it, its own and its JSON name ({@code hits_addend} and
   * {@code hitsAddend}): protobuf's reader would take the one not zero, or refuse when both are, so
   * which counts would hang on their values and order.
   */
  private static void onceEach(JsonParser parser) throws IOException {
    if (parser.currentToken() == JsonToken.START_OBJECT) {
      Set<String> names = new HashSet<>();
      while (parser.nextToken() == JsonToken.FIELD_NAME) {
        String name = parser.currentName();
        if (!names.add(jsonName(name))) {
          throw new JsonParseException(parser, "Duplicate field '" + name + "' in two spellings");
        }
        parser.nextToken();
        onceEach(parser);
      }
    } else if (parser.currentToken() == JsonToken.START_ARRAY) {
      while (parser.nextToken() != JsonToken.END_ARRAY) {
        onceEach(parser);
      }
    }
  }

  /** A field's name as protobuf's JSON name of it: {@code hits_addend} as {@code hitsAddend}. */
  private static String jsonName(String name) {
    StringBuilder json = new StringBuilder(name.length());
    boolean upper = false;
    for (int i = 0; i < name.length(); i++) {
      char c = name.charAt(i);
      if (c == '_') {
        upper = true;
      } else {
        json.append(upper ? Character.toUpperCase(c) : c);
        upper = false;
      }
    }
    return json.toString();
  }

  /** Checks every string of {@code request}, read from JSON, with {@link Json#checkText}. */
  private static void checkText(RateLimitRequest request) {
    Json.checkText(request.getDomain(), "domain");
    for (int d = 0; d < request.getDescriptorsCount(); d++) {
      var entries = request.getDescriptors(d).getEntriesList();
      for (int e = 0; e < entries.size(); e++) {
        String at = "descriptors[" + d + "].entries[" + e + "]";
        Json.checkText(entries.get(e).getKey(), at + ".key");
        Json.checkText(entries.get(e).getValue(), at + ".value");
      }
    }
  }

  private void answer(
      Exchange exchange, DecisionRequest request, long start, Function<Verdict, byte[]> body) {
    try {
      if (decider.answersAtOnce()) {
        respond(exchange, request, decider.decide(request), start, body);
      } else {
        var unused =
            decider
                .decideAsync(request)
                .whenComplete(
                    (verdict, error) -> {
                      if (error != null) {
                        LOG.log(Level.ERROR, "HTTP decision failed: " + error, error);
                        events.refused(DecisionEvents.HTTP, "internal");
                        exchange.fail(500, "the rate limit service failed");
                      } else {
                        respond(exchange, request, verdict, start, body);
                      }
                    });
      }
    } catch (BadRequest e) {
      refuse(exchange, e);
    }
  }

  private void respond(
      Exchange exchange,
      DecisionRequest request,
      Verdict verdict,
      long start,
      Function<Verdict, byte[]> body) {
    events.decided(DecisionEvents.HTTP, request, verdict, System.nanoTime() - start);
    exchange.respond(
        verdict.overall() == Code.OK ? 200 : 429, "application/json", body.apply(verdict));
  }

  private void refuse(Exchange exchange, BadRequest e) {
    events.refused(DecisionEvents.HTTP, e.kind().tag());
    exchange.fail(e.kind() == BadRequest.Kind.NOT_FOUND ? 404 : 400, e.getMessage());
  }

  /**
   * Whether the request comes from no browser ({@link BrowserRequests}; else 403) and declares a
   * JSON body ({@link JsonContentType}; else 415); each refusal counted.
   */
  private boolean declaredJson(Exchange exchange) {
    if (BrowserRequests.fromBrowser(exchange)) {
      events.refused(DecisionEvents.HTTP, "browser_origin");
      BrowserRequests.refuse(exchange);
      return false;
    }
    if (JsonContentType.accepts(exchange)) {
      return true;
    }
    events.refused(DecisionEvents.HTTP, "unsupported_media_type");
    JsonContentType.refuse(exchange);
    return false;
  }

  /** Whether the body is strict UTF-8; else answered 400 and counted. */
  private boolean utf8(Exchange exchange) {
    try {
      Json.checkUtf8(exchange.body());
      return true;
    } catch (IllegalArgumentException e) {
      events.refused(DecisionEvents.HTTP, "invalid_utf8");
      exchange.fail(400, e.getMessage());
      return false;
    }
  }

  /** The body as strict UTF-8 text, or null once answered 400. */
  private String readText(Exchange exchange) {
    return utf8(exchange) ? exchange.body().toString(StandardCharsets.UTF_8) : null;
  }

  /** The body as JSON, or null once answered 400. */
  private JsonNode readJson(Exchange exchange) {
    if (!utf8(exchange)) {
      return null;
    }
    try (InputStream in = new ByteBufInputStream(exchange.body().duplicate())) {
      return Json.mapper().readTree(in);
    } catch (JsonProcessingException e) {
      events.refused(DecisionEvents.HTTP, "malformed_json");
      exchange.fail(400, "malformed JSON: " + e.getOriginalMessage());
      return null;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The answer of {@code /v1/decide}, written straight to JSON bytes. */
  private static byte[] decideAnswer(Verdict verdict) {
    ByteArrayBuilder bytes = new ByteArrayBuilder(256);
    try (JsonGenerator out = Json.mapper().getFactory().createGenerator(bytes)) {
      out.writeStartObject();
      out.writeStringField("overall", verdict.overall().name());
      out.writeArrayFieldStart("statuses");
      for (int d = 0; d < verdict.size(); d++) {
        Status status = verdict.status(d);
        out.writeStartObject();
        out.writeStringField("code", status.code().name());
        out.writeStringField("outcome", status.outcome().name());
        out.writeStringField("rule", status.tag());
        if (status.limit() != null) {
          out.writeObjectFieldStart("limit");
          out.writeStringField("name", status.limit().name());
          out.writeNumberField("requests", status.limit().requestsPerUnit());
          out.writeStringField("window", status.limit().window().toString());
          out.writeStringField("unit", status.limit().unit().name());
          out.writeEndObject();
        }
        out.writeNumberField("remaining", status.remaining());
        if (status.untilReset() != null) {
          out.writeNumberField("durationUntilResetMillis", ceilMillis(status.untilReset()));
        }
        out.writeEndObject();
      }
      out.writeEndArray();
      out.writeEndObject();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return bytes.toByteArray();
  }

  private static long ceilMillis(Duration d) {
    long millis = d.toMillis();
    return d.minusMillis(millis).isZero() ? millis : millis + 1;
  }
}
