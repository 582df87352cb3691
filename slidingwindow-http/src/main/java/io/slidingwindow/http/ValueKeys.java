package io.slidingwindow.http;

import io.slidingwindow.KeyRejectedException;
import java.lang.reflect.Array;
import java.lang.reflect.InaccessibleObjectException;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.util.Arrays;
import java.util.Collection;
import java.util.Map;
import java.util.Optional;

/**
 * The stored text of {@link RequestKey#ofValue(Object)}: a value's key by its content, never by the
 * identity of the object that holds it.
 *
 * <p>Why: {@code Object.toString} prints a class name and an identity hash, so a key made of it
 * differs for every instance and a limit keyed on it never refuses (in memory up to the rule's key
 * table per window, on Redis every call). Arrays print so too, and a record's generated {@code
 * toString} prints an array component so; both are walked instead, as tuples of the {@link
 * RequestKey} grammar, and a value that has only {@code Object}'s text is rejected. The walk is
 * bounded in depth (a collection that holds itself) and in the values it visits (shared parts
 * visited over and over). One instance per walk; not thread-safe.
 */
final class ValueKeys {

  /** How deep values may nest. */
  static final int MAX_DEPTH = 32;

  /** How many values one key may be made of. */
  static final int MAX_VALUES = 1 << 20;

  /** Whether a class's {@code toString} is {@code Object}'s, which prints the instance. */
  private static final ClassValue<Boolean> IDENTITY_TEXT =
      new ClassValue<>() {
        @Override
        protected Boolean computeValue(Class<?> type) {
          try {
            return type.getMethod("toString").getDeclaringClass() == Object.class;
          } catch (NoSuchMethodException e) {
            throw new IllegalStateException("every class has toString: " + type.getName(), e);
          }
        }
      };

  /** How the components of a record class are read; null accessors if they cannot be. */
  private static final ClassValue<Shape> SHAPES =
      new ClassValue<>() {
        @Override
        protected Shape computeValue(Class<?> type) {
          RecordComponent[] components = type.getRecordComponents();
          Method[] accessors = new Method[components.length];
          String[] names = new String[components.length];
          try {
            for (int i = 0; i < components.length; i++) {
              names[i] = components[i].getName();
              accessors[i] = components[i].getAccessor();
              accessors[i].setAccessible(true);
            }
          } catch (InaccessibleObjectException | SecurityException e) {
            return new Shape(null, names);
          }
          return new Shape(accessors, names);
        }
      };

  /** The accessors (null if they cannot be called) and the names of a record's components. */
  private static final class Shape {
    private final Method[] accessors;
    private final String[] names;

    Shape(Method[] accessors, String[] names) {
      this.accessors = accessors;
      this.names = names;
    }
  }

  private int visited;

  private ValueKeys() {}

  /**
   * The stored text of the key of {@code value}, which is not null.
   *
   * @throws KeyRejectedException as {@link RequestKey#ofValue(Object)} says
   */
  static String of(Object value) {
    if (value instanceof String text) {
      return "custom:" + RequestKey.escape(text); // the common case, on every request: no walk
    }
    return new ValueKeys().text(value, 0);
  }

  private String text(Object value, int depth) {
    if (value == null) {
      return "null";
    }
    if (value instanceof RequestKey key) {
      return key.value();
    }
    if (depth > MAX_DEPTH || ++visited > MAX_VALUES) {
      throw new KeyRejectedException(
          "a key value must nest at most "
              + MAX_DEPTH
              + " deep and hold at most "
              + MAX_VALUES
              + " values; this one, at a value of class "
              + value.getClass().getName()
              + ", does not");
    }
    Class<?> type = value.getClass();
    if (type.isArray()) {
      StringBuilder b = new StringBuilder("(");
      for (int i = 0, n = Array.getLength(value); i < n; i++) {
        b.append(i == 0 ? "" : "|").append(text(Array.get(value, i), depth + 1));
      }
      return b.append(')').toString();
    }
    if (value instanceof Collection<?> elements) {
      return tuple(elements, depth);
    }
    if (value instanceof Optional<?> optional) {
      return tuple(optional.stream().toList(), depth);
    }
    if (value instanceof Map<?, ?> map) {
      StringBuilder b = new StringBuilder("(");
      for (Map.Entry<?, ?> entry : map.entrySet()) {
        b.append(b.length() == 1 ? "(" : "|(")
            .append(text(entry.getKey(), depth + 2))
            .append('|')
            .append(text(entry.getValue(), depth + 2))
            .append(')');
      }
      return b.append(')').toString();
    }
    if (type.isRecord()) {
      Shape shape = SHAPES.get(type);
      Object[] components = components(value, type, shape);
      String own = value.toString();
      return own != null && own.equals(generated(type, shape, components))
          ? tuple(Arrays.asList(components), depth)
          : custom(type, own);
    }
    if (IDENTITY_TEXT.get(type)) {
      throw new KeyRejectedException(
          "a value of class "
              + type.getName()
              + " cannot be a key: its toString is Object's, which names the instance, not its"
              + " content, so every call would count under a key of its own; key on one of its"
              + " fields, or give "
              + type.getSimpleName()
              + " a toString of its content");
    }
    return custom(type, value.toString());
  }

  /** The custom key of {@code text}, the {@code toString} of a {@code type}. */
  private static String custom(Class<?> type, String text) {
    if (text == null) {
      throw new KeyRejectedException(
          "a value of class " + type.getName() + " cannot be a key: its toString gave null");
    }
    return "custom:" + RequestKey.escape(text);
  }

  private String tuple(Collection<?> elements, int depth) {
    StringBuilder b = new StringBuilder("(");
    for (Object element : elements) {
      b.append(b.length() == 1 ? "" : "|").append(text(element, depth + 1));
    }
    return b.append(')').toString();
  }

  /** The values of the components of {@code record}, of the record class {@code type}. */
  private static Object[] components(Object record, Class<?> type, Shape shape) {
    Method[] accessors = shape.accessors;
    if (accessors == null) {
      throw new KeyRejectedException(
          "the record "
              + type.getName()
              + " cannot be a key: its components cannot be read (open its package to"
              + " io.slidingwindow.http, or key on a component)");
    }
    Object[] values = new Object[accessors.length];
    for (int i = 0; i < accessors.length; i++) {
      try {
        values[i] = accessors[i].invoke(record);
      } catch (IllegalAccessException | InvocationTargetException e) {
        throw new KeyRejectedException(
            "the record " + type.getName() + " cannot be a key: a component cannot be read", e);
      }
    }
    return values;
  }

  /**
   * The text a record's generated {@code toString} gives ({@code Point[x=1, y=2]}), by which a
   * record that declares its own is told apart.
   */
  private static String generated(Class<?> type, Shape shape, Object[] components) {
    StringBuilder b = new StringBuilder(type.getSimpleName()).append('[');
    for (int i = 0; i < components.length; i++) {
      b.append(i == 0 ? "" : ", ")
          .append(shape.names[i])
          .append('=')
          .append(String.valueOf(components[i]));
    }
    return b.append(']').toString();
  }
}
