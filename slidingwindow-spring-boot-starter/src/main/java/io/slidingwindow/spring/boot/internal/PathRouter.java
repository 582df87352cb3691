package io.slidingwindow.spring.boot.internal;

/**
 * Something besides the application's handler mappings that sends requests on by their path (the
 * gateway's {@code Path} predicates), as far as the case of paths goes. The starter's rules over
 * paths match regardless of case whenever one of these beans, or a handler mapping, says it does:
 * asked each time the rules are built, at start-up and on every reload.
 */
@FunctionalInterface
public interface PathRouter {

  /**
   * Why this router matches paths regardless of case, for messages (e.g. which bean was given a
   * parser that ignores case); null if it matches them in their own case, or cannot tell.
   */
  String ignoresCase();
}
