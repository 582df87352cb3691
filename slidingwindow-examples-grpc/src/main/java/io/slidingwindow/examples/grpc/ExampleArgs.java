package io.slidingwindow.examples.grpc;

/** Reads {@code --name value} options. */
final class ExampleArgs {

  private ExampleArgs() {}

  /**
   * The value of {@code --port}, or {@code otherwise}.
   *
   * @throws IllegalArgumentException if it is not a port number
   */
  static int port(String[] args, int otherwise) {
    int port = intOption(args, "--port", otherwise);
    if (port < 0 || port > 65_535) {
      throw new IllegalArgumentException("--port must be 0 to 65535, was " + port);
    }
    return port;
  }

  /**
   * The integer value of option {@code name}, or {@code otherwise}.
   *
   * @throws IllegalArgumentException if the value is missing or not an integer
   */
  static int intOption(String[] args, String name, int otherwise) {
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals(name) || args[i].startsWith(name + "=")) {
        String value =
            args[i].equals(name)
                ? (i + 1 < args.length ? args[i + 1] : null)
                : args[i].substring(name.length() + 1);
        try {
          return Integer.parseInt(value);
        } catch (NumberFormatException e) {
          throw new IllegalArgumentException(name + " must be an integer, was '" + value + "'", e);
        }
      }
    }
    return otherwise;
  }
}
