package io.slidingwindow.servlet;

import io.slidingwindow.http.RequestKey;
import jakarta.servlet.http.HttpServletRequest;
import java.util.function.Function;

/** A {@link KeyResolver} whose keys are typed; its text is the typed key's value. */
final class TypedKeyResolver implements KeyResolver {

  private final Function<HttpServletRequest, RequestKey> keys;

  TypedKeyResolver(Function<HttpServletRequest, RequestKey> keys) {
    this.keys = keys;
  }

  @Override
  public String resolve(HttpServletRequest request) {
    RequestKey key = keys.apply(request);
    return key == null ? null : key.value();
  }

  @Override
  public RequestKey key(HttpServletRequest request) {
    return keys.apply(request);
  }
}
