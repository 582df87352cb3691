package io.slidingwindow.server.settings;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.function.UnaryOperator;

/**
 * Reads the settings that {@link Option} lists from the command line's arguments, system properties
 * and environment variables, in that order of precedence: an argument wins over a property, a
 * property over the environment, and each over the default. A secret ({@link Option#secret()}) is
 * read from its environment variable, or from the file its {@code _FILE} variable names, only: a
 * command line can be read by other users of the machine. A variable named like a setting that is
 * none is refused ({@link EnvironmentNames}), as an unknown argument is. Stateless.
 */
public final class SettingsSources {

  private SettingsSources() {}

  /**
   * Sets on {@code builder} every option that {@code args}, {@code properties} (which answers null
   * for what is not set) or {@code environment} give.
   *
   * @param args {@code --name value} or {@code --name=value} pairs
   * @param environment every variable of the process, such as {@link System#getenv()}
   * @return {@code builder}
   * @throws IllegalArgumentException naming the argument, property or variable whose value is bad,
   *     an unknown argument or {@code SLIDINGWINDOW_} variable, or a secret given as an argument or
   *     property
   * @throws IllegalStateException if the settings conflict with each other
   */
  public static <B extends SettingsBuilder<B>> B read(
      B builder, String[] args, UnaryOperator<String> properties, Map<String, String> environment) {
    Map<Option, String> arguments = arguments(args);
    EnvironmentNames.check(environment);
    for (Option option : Option.values()) {
      String where;
      String text;
      if (arguments.containsKey(option)) {
        where = "--" + option.optionName();
        text = arguments.get(option);
      } else if (!option.secret() && present(properties.apply(option.systemProperty()))) {
        where = "-D" + option.systemProperty();
        text = properties.apply(option.systemProperty());
      } else {
        where = option.environmentVariable();
        text = fromEnvironment(option, environment::get);
      }
      if (option.secret()
          && (arguments.containsKey(option)
              || present(properties.apply(option.systemProperty())))) {
        throw new IllegalArgumentException(
            (arguments.containsKey(option) ? where : "-D" + option.systemProperty())
                + " is a secret, read from the environment only: set "
                + option.environmentVariable()
                + " or "
                + option.environmentVariable()
                + "_FILE (the command line can be read by other users of the machine)");
      }
      if (text == null) {
        continue;
      }
      try {
        option.apply(builder, text);
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            where + (option.secret() ? "" : " '" + text + "'") + ": " + e.getMessage(), e);
      }
    }
    return builder;
  }

  /** Every option as a line of help: argument, environment variable, default, meaning. */
  public static String help() {
    StringBuilder text = new StringBuilder();
    for (Option option : Option.values()) {
      String argument =
          option.secret() ? "" : "--" + option.optionName() + " " + option.valueHint();
      text.append(String.format("  %-34s %-40s %s%n", argument, variables(option), option.help()));
      if (option.defaultText() != null) {
        text.append(String.format("  %-34s %-40s default: %s%n", "", "", option.defaultText()));
      }
    }
    return text.toString();
  }

  private static String variables(Option option) {
    String variable = option.environmentVariable();
    return option.secret() ? variable + "[_FILE]" : variable;
  }

  private static Map<Option, String> arguments(String[] args) {
    Map<Option, String> given = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("unexpected argument '" + arg + "'; see --help");
      }
      String name = arg.substring(2);
      String value = null;
      int equals = name.indexOf('=');
      if (equals >= 0) {
        value = name.substring(equals + 1);
        name = name.substring(0, equals);
      }
      Option option = Option.byName(name);
      if (option == null) {
        throw new IllegalArgumentException("unknown option --" + name + "; see --help");
      }
      if (value == null) {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("option --" + name + " needs a value");
        }
        value = args[++i];
      }
      if (given.put(option, value) != null) {
        throw new IllegalArgumentException("option --" + name + " is given twice");
      }
    }
    return given;
  }

  private static String fromEnvironment(Option option, UnaryOperator<String> environment) {
    String variable = option.environmentVariable();
    String value = environment.apply(variable);
    String file = option.secret() ? environment.apply(variable + "_FILE") : null;
    if (present(value) && present(file)) {
      throw new IllegalArgumentException("set " + variable + " or " + variable + "_FILE, not both");
    }
    if (present(value)) {
      return value;
    }
    if (!present(file)) {
      return null;
    }
    try {
      String content = Files.readString(Path.of(file), StandardCharsets.UTF_8);
      return content.endsWith("\r\n")
          ? content.substring(0, content.length() - 2)
          : content.endsWith("\n") ? content.substring(0, content.length() - 1) : content;
    } catch (IOException e) {
      throw new IllegalArgumentException(
          variable + "_FILE: cannot read '" + file + "': " + e.getMessage(), e);
    }
  }

  private static boolean present(String value) {
    return value != null && !value.isEmpty();
  }
}
