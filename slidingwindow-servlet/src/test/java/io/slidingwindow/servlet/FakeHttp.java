package io.slidingwindow.servlet;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.lang.reflect.Proxy;
import java.security.Principal;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Requests and responses without a container, for unit tests that drive a resolver or the enforcer
 * many times: only what those read and write is answered; anything else throws.
 */
final class FakeHttp {

  private FakeHttp() {}

  /** A GET of {@code path} from {@code remoteAddr} with these header name/value pairs. */
  static HttpServletRequest request(String remoteAddr, String path, String... headers) {
    return requestBy(null, remoteAddr, path, headers);
  }

  /** As {@link #request(String, String, String...)}, by the user {@code principal} if not null. */
  static HttpServletRequest requestBy(
      String principal, String remoteAddr, String path, String... headers) {
    Map<String, List<String>> values = new HashMap<>();
    for (int i = 0; i + 1 < headers.length; i += 2) {
      values
          .computeIfAbsent(headers[i].toLowerCase(Locale.ROOT), k -> new ArrayList<>())
          .add(headers[i + 1]);
    }
    Map<String, Object> attributes = new HashMap<>();
    Principal user = principal == null ? null : () -> principal;
    return (HttpServletRequest)
        Proxy.newProxyInstance(
            FakeHttp.class.getClassLoader(),
            new Class<?>[] {HttpServletRequest.class},
            (proxy, method, args) ->
                switch (method.getName()) {
                  case "getRemoteAddr" -> remoteAddr;
                  case "getMethod" -> "GET";
                  case "getServletPath", "getRequestURI" -> path;
                  case "getPathInfo" -> null;
                  case "getDispatcherType" -> DispatcherType.REQUEST;
                  case "getContextPath" -> "";
                  case "getUserPrincipal" -> user;
                  case "getHeader" -> {
                    List<String> list = values.get(((String) args[0]).toLowerCase(Locale.ROOT));
                    yield list == null ? null : list.get(0);
                  }
                  case "getHeaders" ->
                      Collections.enumeration(
                          values.getOrDefault(
                              ((String) args[0]).toLowerCase(Locale.ROOT), List.of()));
                  case "getAttribute" -> attributes.get((String) args[0]);
                  case "setAttribute" -> {
                    attributes.put((String) args[0], args[1]);
                    yield null;
                  }
                  case "removeAttribute" -> {
                    attributes.remove((String) args[0]);
                    yield null;
                  }
                  case "isAsyncStarted" -> false;
                  case "toString" -> "FakeRequest " + remoteAddr + " " + path;
                  case "hashCode" -> System.identityHashCode(proxy);
                  case "equals" -> proxy == args[0];
                  default -> throw new UnsupportedOperationException(method.getName());
                });
  }

  /** A response that records its status and headers and discards its body. */
  static final class Response {
    int status = 200;
    final Map<String, String> headers = new HashMap<>();
    final HttpServletResponse servlet =
        (HttpServletResponse)
            Proxy.newProxyInstance(
                FakeHttp.class.getClassLoader(),
                new Class<?>[] {HttpServletResponse.class},
                (proxy, method, args) ->
                    switch (method.getName()) {
                      case "setStatus" -> {
                        status = (Integer) args[0];
                        yield null;
                      }
                      case "setHeader" -> {
                        headers.put((String) args[0], (String) args[1]);
                        yield null;
                      }
                      case "getStatus" -> status;
                      case "isCommitted" -> false; // the body is discarded, never sent
                      case "setContentType", "setCharacterEncoding", "setContentLength" -> null;
                      case "getOutputStream" -> DISCARD;
                      case "hashCode" -> System.identityHashCode(proxy);
                      case "equals" -> proxy == args[0];
                      case "toString" -> "FakeResponse " + status;
                      default -> throw new UnsupportedOperationException(method.getName());
                    });
  }

  private static final ServletOutputStream DISCARD =
      new ServletOutputStream() {
        @Override
        public boolean isReady() {
          return true;
        }

        @Override
        public void setWriteListener(WriteListener listener) {}

        @Override
        public void write(int b) {}

        @Override
        public void write(byte[] b, int off, int len) {}
      };
}
