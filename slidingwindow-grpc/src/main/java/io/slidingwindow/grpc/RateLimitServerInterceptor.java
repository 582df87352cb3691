package io.slidingwindow.grpc;

import io.grpc.Context;
import io.grpc.Metadata;
import io.grpc.ServerCall;
import io.grpc.ServerCallHandler;
import io.grpc.ServerInterceptor;
import io.slidingwindow.KeyedRateLimiter;
import io.slidingwindow.http.ClientAddresses;
import io.slidingwindow.http.EnforcementCore;
import io.slidingwindow.http.PathFirewall;
import io.slidingwindow.http.QuotaHeaders;
import io.slidingwindow.http.RateLimitListener;
import io.slidingwindow.http.RateLimiterFactory;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.ForkJoinPool;
import java.util.function.Supplier;

/**
 * A gRPC {@link ServerInterceptor} that limits calls by rules and refuses those over a limit with
 * {@code RESOURCE_EXHAUSTED}.
 *
 * <pre>{@code
 * Server server = NettyServerBuilder.forPort(50051)
 *     .addService(new GreeterImpl())
 *     .intercept(RateLimitServerInterceptor.builder()
 *         .rule(GrpcRateLimitRule.builder("say-hello")
 *             .method("helloworld.Greeter/SayHello")
 *             .limit("5/10s")
 *             .build())
 *         .build())
 *     .build();
 * }</pre>
 *
 * <p>For each call, the rules whose method patterns match its full method name are applied in
 * order: each takes a permit under the call's key, and the first that refuses (and is not in
 * dry-run) ends the call. Rules that count per call decide before the call's handler starts, so a
 * refused call never reaches the application; rules that count {@linkplain
 * GrpcRateLimitRule#perMessage() per message} decide each client message before the handler sees
 * it, and a refusal ends the stream; they decide the first message when the call starts, before the
 * handler, so that a stream that sends no message still counts once. The decisions, dry-run, the
 * listener, long keys, fail-open on a failing backend and {@code Retry-After} are those of {@link
 * EnforcementCore}, which the servlet and reactive filters drive alike.
 *
 * <p>A rule that {@linkplain GrpcRateLimitRule.Builder#countCodes counts only some codes} (failed
 * logins: {@code UNAUTHENTICATED}) reserves its permit when the call starts, refusing it as any
 * rule does, and settles when the call is closed: the permit is given back, through the limiter's
 * asynchronous refund, unless the status the server closes the call with (the handler's, {@code
 * UNKNOWN} for a handler that throws, the status an inner interceptor throws when it starts the
 * call, {@code RESOURCE_EXHAUSTED} for a refusal before the handler starts) has one of the rule's
 * codes. Nothing the client sends chooses that status. A call the client cancelled or whose
 * deadline passed keeps its permit, whether or not the handler closes it after (with a code the
 * client never receives), and so does a call this interceptor ends after the handler started (a
 * per-message rule refusing a later message, a decision failing), whose application code is never
 * known.
 *
 * <p>Keys cannot be dodged: a key resolver that returns null or throws does not exempt a call, it
 * counts under the client's address ({@link Builder#clientAddresses}), the listener's {@code
 * onError} is told and the log says so once per rule; so does a key the limiter rejects, which no
 * failure policy turns into a grant. The client's address is also the group of every key in a
 * rule's key table, so that the new keys of one client fill at most its share of the table (see
 * {@link io.slidingwindow.KeyOverflow}).
 *
 * <p>A refusal closes the call with {@code RESOURCE_EXHAUSTED} and the description {@code rate
 * limit exceeded; retry after N seconds}; its trailers hold a {@code google.rpc.Status} in {@code
 * grpc-status-details-bin} with a {@code google.rpc.RetryInfo} of N seconds, {@code retry-after:
 * N}, and {@code grpc-retry-pushback-ms} (N * 1000), so that a client whose gRPC retry policy
 * retries {@code RESOURCE_EXHAUSTED} waits that long. N is the wait rounded up to whole seconds: a
 * retry after N seconds is never early for the rule that refused (nor for an earlier rule this call
 * left without a permit). With {@link Builder#rateLimitHeaders(boolean)} the draft-10 {@code
 * ratelimit-policy} and {@code ratelimit} entries go into a granted call's response headers
 * (per-call rules) and into a refusal's trailers. No description or trailer names the key.
 *
 * <p>Never blocking: every decision goes through {@link KeyedRateLimiter#decideAsync}. A decision
 * that is complete at once (the in-memory limiter) is applied on the thread that called the
 * interceptor; one that completes later (a remote backend) lets the call go on from the {@linkplain
 * Builder#executor(Executor) executor}, in the call's {@link Context}, with the call's events held
 * back in order meanwhile.
 *
 * <p>Instances are immutable and thread-safe if the key resolvers, the limiters and the listener
 * are.
 */
public final class RateLimitServerInterceptor implements ServerInterceptor {

  private static final Matching NONE = new Matching(false, false);

  /**
   * How many method names the interceptor remembers the matching rules of: a server's methods, but
   * not the names a client can choose where a fallback registry accepts any method.
   */
  private static final int MAX_REMEMBERED_METHODS = 10_000;

  private final List<GrpcRateLimitRule> rules;
  private final List<GrpcRateLimitRule> callRules;
  private final List<GrpcRateLimitRule> messageRules;
  private final EnforcementCore<CallRequest> perCall;
  private final EnforcementCore<CallRequest> perMessage;
  private final Executor executor;
  private final ConcurrentHashMap<String, Matching> matching = new ConcurrentHashMap<>();

  /** Whether any per-call rule and any per-message rule matches a method. */
  private record Matching(boolean call, boolean message) {}

  private RateLimitServerInterceptor(Builder b) {
    this.rules = List.copyOf(b.rules);
    List<GrpcRateLimitRule> calls = new ArrayList<>();
    List<GrpcRateLimitRule> messages = new ArrayList<>();
    for (GrpcRateLimitRule rule : rules) {
      (rule.perMessage() ? messages : calls).add(rule);
    }
    this.callRules = List.copyOf(calls);
    this.messageRules = List.copyOf(messages);
    this.perCall = core(b, callRules);
    this.perMessage = core(b, messageRules);
    this.executor = b.executor;
  }

  private static EnforcementCore<CallRequest> core(Builder b, List<GrpcRateLimitRule> rules) {
    GrpcKeyResolver client = GrpcKeyResolver.peerAddress(b.clientAddresses);
    EnforcementCore.Builder<CallRequest> core =
        EnforcementCore.<CallRequest>builder()
            .limiterFactory(b.limiterFactory)
            .listener(b.listener)
            .rateLimitHeaders(b.rateLimitHeaders)
            .pathFirewall(PathFirewall.strict())
            .clientKey(
                (CallRequest request) ->
                    client.key(request.call(), request.headers(), request.context()));
    for (GrpcRateLimitRule rule : rules) {
      GrpcKeyResolver resolver = rule.keyResolver();
      core.rule(
          rule.httpRule(),
          (CallRequest request) ->
              resolver.key(request.call(), request.headers(), request.context()));
    }
    return core.build();
  }

  /** Returns a builder. */
  public static Builder builder() {
    return new Builder();
  }

  /** The rules, in the order they are applied (per-call rules before per-message ones). */
  public List<GrpcRateLimitRule> rules() {
    return rules;
  }

  @Override
  public <ReqT, RespT> ServerCall.Listener<ReqT> interceptCall(
      ServerCall<ReqT, RespT> call, Metadata headers, ServerCallHandler<ReqT, RespT> next) {
    String method = call.getMethodDescriptor().getFullMethodName();
    Matching matches = matching.get(method);
    if (matches == null) {
      matches = matchingOf(method);
      if (matching.size() < MAX_REMEMBERED_METHODS) {
        matching.put(method, matches);
      }
    }
    if (!matches.call() && !matches.message()) {
      return next.startCall(call, headers);
    }
    List<String> paths = List.of("/" + method);
    CallRequest request = new CallRequest(call, headers, Context.current());
    Supplier<CompletionStage<EnforcementCore.Outcome>> start =
        matches.call() ? () -> decide(perCall, request, paths) : null;
    Supplier<CompletionStage<EnforcementCore.Outcome>> message =
        matches.message() ? () -> decide(perMessage, request, paths) : null;
    LimitedCall<ReqT, RespT> limited = new LimitedCall<>(call, request.context());
    GatedListener<ReqT> gate = new GatedListener<>(executor, request.context(), limited, message);
    gate.start(start, () -> next.startCall(limited, headers));
    return gate;
  }

  private static CompletionStage<EnforcementCore.Outcome> decide(
      EnforcementCore<CallRequest> core, CallRequest request, List<String> paths) {
    CompletionStage<EnforcementCore.Outcome> outcome =
        core.enforceAsync(request, "POST", paths, QuotaHeaders::new);
    return outcome == null ? CompletableFuture.completedFuture(null) : outcome;
  }

  private Matching matchingOf(String method) {
    boolean call = callRules.stream().anyMatch(rule -> rule.matches(method));
    boolean message = messageRules.stream().anyMatch(rule -> rule.matches(method));
    return call || message ? new Matching(call, message) : NONE;
  }

  @Override
  public String toString() {
    return "RateLimitServerInterceptor" + rules;
  }

  /** Builds a {@link RateLimitServerInterceptor}. Not thread-safe. */
  public static final class Builder {
    private final List<GrpcRateLimitRule> rules = new ArrayList<>();
    private RateLimiterFactory limiterFactory = RateLimiterFactory.inMemory();
    private RateLimitListener listener = RateLimitListener.NONE;
    private boolean rateLimitHeaders;
    private Executor executor = ForkJoinPool.commonPool();
    private ClientAddresses clientAddresses = ClientAddresses.direct();

    private Builder() {}

    /**
     * Adds a rule; rules apply in the order added, those per call before those per message.
     *
     * @throws IllegalArgumentException if {@code rule} is null
     */
    public Builder rule(GrpcRateLimitRule rule) {
      if (rule == null) {
        throw new IllegalArgumentException("rule must not be null");
      }
      rules.add(rule);
      return this;
    }

    /**
     * Sets how a call's client address is found, {@link ClientAddresses#direct()} (the peer's
     * address) by default: the key a call counts under when its rule's key resolver returns null or
     * throws, and the group of every key in the rules' key tables, whose new keys one client can
     * fill only up to its share. Pass the {@link ClientAddresses} the rules' resolvers use: behind
     * a proxy that it does not trust, every client is the proxy.
     *
     * @throws IllegalArgumentException if {@code clientAddresses} is null
     */
    public Builder clientAddresses(ClientAddresses clientAddresses) {
      if (clientAddresses == null) {
        throw new IllegalArgumentException("clientAddresses must not be null");
      }
      this.clientAddresses = clientAddresses;
      return this;
    }

    /**
     * Sets the backend, {@link RateLimiterFactory#inMemory()} by default; a factory of {@code
     * RedisRateLimiter}s ({@code slidingwindow-redis}) shares the limits across servers.
     *
     * @throws IllegalArgumentException if {@code limiterFactory} is null
     */
    public Builder limiterFactory(RateLimiterFactory limiterFactory) {
      if (limiterFactory == null) {
        throw new IllegalArgumentException("limiterFactory must not be null");
      }
      this.limiterFactory = limiterFactory;
      return this;
    }

    /**
     * Sets the listener told of every rule and decision (metrics, logs, tracing), none by default.
     *
     * @throws IllegalArgumentException if {@code listener} is null
     */
    public Builder listener(RateLimitListener listener) {
      if (listener == null) {
        throw new IllegalArgumentException("listener must not be null");
      }
      this.listener = listener;
      return this;
    }

    /**
     * Sets whether to send the draft-10 {@code ratelimit-policy} and {@code ratelimit} metadata;
     * off by default.
     */
    public Builder rateLimitHeaders(boolean rateLimitHeaders) {
      this.rateLimitHeaders = rateLimitHeaders;
      return this;
    }

    /**
     * Sets where a call goes on after a decision that did not complete at once (a remote
     * backend's): the application's handler then runs there. {@link ForkJoinPool#commonPool()} by
     * default; pass the executor the server runs its calls on.
     *
     * @throws IllegalArgumentException if {@code executor} is null
     */
    public Builder executor(Executor executor) {
      if (executor == null) {
        throw new IllegalArgumentException("executor must not be null");
      }
      this.executor = executor;
      return this;
    }

    /**
     * Creates one limiter per rule through the factory and builds the interceptor.
     *
     * @throws IllegalArgumentException if two rules share a name, the factory rejects a rule, or a
     *     rule counts only some codes and its limiter cannot give permits back
     */
    public RateLimitServerInterceptor build() {
      Set<String> names = new HashSet<>();
      for (GrpcRateLimitRule rule : rules) {
        if (!names.add(rule.name())) {
          throw new IllegalArgumentException(
              "rule names must be unique, '" + rule.name() + "' repeats");
        }
      }
      try {
        return new RateLimitServerInterceptor(this);
      } catch (IllegalArgumentException e) {
        throw inTermsOfCodes(e);
      }
    }

    /**
     * The enforcement's refusal of a limiter that cannot give permits back, which speaks of the
     * statuses of the rule underneath, told in the terms of the gRPC rule that counts codes.
     */
    private IllegalArgumentException inTermsOfCodes(IllegalArgumentException e) {
      String message = e.getMessage() == null ? "" : e.getMessage();
      for (GrpcRateLimitRule rule : rules) {
        String statuses = "countStatuses: rule '" + rule.name() + "' counts only some statuses";
        if (!rule.countCodes().isEmpty() && message.startsWith(statuses)) {
          return new IllegalArgumentException(
              "countCodes: rule '"
                  + rule.name()
                  + "' counts only some codes"
                  + message.substring(statuses.length()),
              e);
        }
      }
      return e;
    }
  }
}
