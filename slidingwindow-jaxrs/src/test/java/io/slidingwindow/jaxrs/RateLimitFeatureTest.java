package io.slidingwindow.jaxrs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ResourceInfo;
import jakarta.ws.rs.core.Configuration;
import jakarta.ws.rs.core.FeatureContext;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.dynamic.loading.ClassLoadingStrategy;
import net.bytebuddy.implementation.SuperMethodCall;
import net.bytebuddy.matcher.ElementMatchers;
import org.junit.jupiter.api.Test;

/** What the feature makes of annotations when the application starts. */
class RateLimitFeatureTest {

  static class Resources {
    @GET
    @RateLimit(limits = "2/10s")
    public void good() {}

    @GET
    @RateLimit(limits = "2/10s", name = "good-copy")
    public void another() {}

    @GET
    @RateLimit(limits = "2/10s", name = "good-copy")
    public void sameName() {}

    @GET
    @RateLimit(limits = "two per second")
    public void badLimit() {}

    @GET
    @RateLimit(limits = "2/10s", key = "resolver:nobody")
    public void unknownResolver() {}

    @GET
    @RateLimit(limits = "2/10s", key = "cookie:x")
    public void unknownKey() {}

    @GET
    public void plain() {}
  }

  private final List<Object> registered = new ArrayList<>();

  private void configure(RateLimitFeature feature, String methodName) throws Exception {
    configure(feature, Resources.class, Resources.class.getMethod(methodName));
  }

  private void configure(RateLimitFeature feature, Class<?> resourceClass, Method method) {
    ResourceInfo info =
        new ResourceInfo() {
          @Override
          public Method getResourceMethod() {
            return method;
          }

          @Override
          public Class<?> getResourceClass() {
            return resourceClass;
          }
        };
    FeatureContext context =
        (FeatureContext)
            Proxy.newProxyInstance(
                getClass().getClassLoader(),
                new Class<?>[] {FeatureContext.class},
                (proxy, m, args) -> {
                  if (m.getName().equals("register")) {
                    registered.add(args[0]);
                  }
                  return proxy;
                });
    feature.configure(info, context);
  }

  @Test
  void configure_annotatedMethod_registersOneFilter_sameForEveryConfigure() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    configure(feature, "good");
    configure(feature, "good");
    configure(feature, "plain");

    assertThat(registered).hasSize(2).allMatch(MethodRateLimitFilter.class::isInstance);
    assertThat(registered.get(0)).isSameAs(registered.get(1));
  }

  @Test
  void configure_nameTakenByAnotherMethod_failsNamingBoth() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();
    configure(feature, "another");

    assertThatThrownBy(() -> configure(feature, "sameName"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'good-copy'")
        .hasMessageContaining("sameName")
        .hasMessageContaining("another");
  }

  @Test
  void configure_unreadableAnnotation_failsNamingTheMethodAndTheValue() {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    assertThatThrownBy(() -> configure(feature, "badLimit"))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("badLimit")
        .hasMessageContaining("two per second");
    assertThatThrownBy(() -> configure(feature, "unknownResolver"))
        .hasMessageContaining("unknownResolver")
        .hasMessageContaining("'nobody'");
    assertThatThrownBy(() -> configure(feature, "unknownKey"))
        .hasMessageContaining("unknownKey")
        .hasMessageContaining("cookie:x");
  }

  interface Contract {
    @GET
    @RateLimit(limits = "1/1h", name = "contract")
    String call(String id);
  }

  interface Other {
    @RateLimit(limits = "1/1h", name = "other")
    String call(String id);
  }

  static class Middle implements Contract {
    @Override
    @RateLimit(limits = "1/1h", name = "middle")
    public String call(String id) {
      return id;
    }
  }

  static class Leaf extends Middle implements Other {
    @Override
    public String call(String id) {
      return id;
    }
  }

  static class Plain implements Contract {
    @Override
    public String call(String id) {
      return id;
    }
  }

  static class Own extends Plain {
    @Override
    @RateLimit(limits = "1/1h", name = "own")
    public String call(String id) {
      return id;
    }
  }

  interface Store<T> {
    @GET
    @RateLimit(limits = "1/1h", name = "store")
    String put(T item);
  }

  static class StringStore implements Store<String> {
    @Override
    public String put(String item) {
      return item;
    }
  }

  static class Base {
    public String call(String id) {
      return id;
    }
  }

  /** Inherits its implementation of {@link Contract#call} from {@link Base}. */
  static class Inheriting extends Base implements Contract {}

  static class Locators {
    @GET
    public String get() {
      return "";
    }

    @Path("child")
    @RateLimit(limits = "1/1h")
    public Resources child() {
      return new Resources();
    }
  }

  static class Helpers {
    @GET
    public String get() {
      return "";
    }

    @RateLimit(limits = "1/1h")
    public void helper() {}
  }

  /** A root resource with nothing but an annotated locator. */
  @Path("locating")
  static class LocatorOnlyRoot {
    @Path("child")
    @RateLimit(limits = "1/1h")
    public Resources child() {
      return new Resources();
    }
  }

  /** A root resource with nothing but a locator and an annotated plain method. */
  @Path("helping")
  static class HelperRoot {
    @Path("child")
    public Resources child() {
      return new Resources();
    }

    @RateLimit(limits = "1/1h")
    public void helper() {}
  }

  /** A root resource through its contract, which carries {@code @Path}. */
  @Path("contract")
  interface PathContract {
    @Path("child")
    Resources child();
  }

  /** Inherits {@code @Path} from {@link PathContract}; its annotated locator is misplaced. */
  static class ContractRoot implements PathContract {
    @Override
    @RateLimit(limits = "1/1h")
    public Resources child() {
      return new Resources();
    }
  }

  /** Starts the feature as a {@link jakarta.ws.rs.core.Feature} that sees these registrations. */
  private static boolean start(
      RateLimitFeature feature, Set<Class<?>> classes, Set<Object> objects) {
    Configuration configuration =
        (Configuration)
            Proxy.newProxyInstance(
                RateLimitFeatureTest.class.getClassLoader(),
                new Class<?>[] {Configuration.class},
                (proxy, m, args) ->
                    switch (m.getName()) {
                      case "getClasses" -> classes;
                      case "getInstances" -> objects;
                      default -> null;
                    });
    FeatureContext context =
        (FeatureContext)
            Proxy.newProxyInstance(
                RateLimitFeatureTest.class.getClassLoader(),
                new Class<?>[] {FeatureContext.class},
                (proxy, m, args) -> m.getName().equals("getConfiguration") ? configuration : proxy);
    return feature.configure(context);
  }

  @Test
  void featureConfigure_locatorOnlyRootClassOrInstance_failsNamingIt() {
    assertThatThrownBy(
            () ->
                start(RateLimitFeature.builder().build(), Set.of(LocatorOnlyRoot.class), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith(
            "@RateLimit on " + LocatorOnlyRoot.class.getName() + ".child would limit nothing")
        .hasMessageContaining("sub-resource locator");
    assertThatThrownBy(
            () -> start(RateLimitFeature.builder().build(), Set.of(), Set.of(new HelperRoot())))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("@RateLimit on " + HelperRoot.class.getName() + ".helper")
        .hasMessageContaining("no resource method");
  }

  @Test
  void featureConfigure_pathOnInterface_checked() {
    assertThatThrownBy(
            () -> start(RateLimitFeature.builder().build(), Set.of(ContractRoot.class), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("@RateLimit on " + ContractRoot.class.getName() + ".child")
        .hasMessageContaining("sub-resource locator");
  }

  @Test
  void featureConfigure_classesWithoutPath_notChecked_correctRootsPass() {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    boolean enabled =
        start(feature, Set.of(Helpers.class, Locators.class, Resources.class), Set.of(feature));

    assertThat(enabled).isTrue();
  }

  /** Reached only through a locator; its limit cannot be read. */
  static class BadSub {
    @GET
    @RateLimit(limits = "two per second")
    public String get() {
      return "";
    }
  }

  /** A contract a locator is declared to return; its limit cannot be read. */
  interface BadContract {
    @GET
    @RateLimit(limits = "two per second")
    String get();
  }

  /** A contract whose two methods share a name: only the class served decides their names. */
  interface SharedNames {
    @GET
    @Path("a")
    @RateLimit(limits = "1/1h", name = "shared")
    String a();

    @GET
    @Path("b")
    @RateLimit(limits = "1/1h", name = "shared")
    String b();
  }

  /** Locates itself, and {@link BadSub} one step further. */
  static class Cycle {
    @Path("again")
    public Cycle again() {
      return this;
    }

    @Path("bad")
    public BadSub bad() {
      return new BadSub();
    }
  }

  @Path("cyclic")
  static class CyclicRoot {
    @Path("cycle")
    public Cycle cycle() {
      return new Cycle();
    }
  }

  @Path("contract")
  static class ContractLocatorRoot {
    @Path("c")
    public BadContract contract() {
      return () -> "";
    }
  }

  @Path("shared")
  static class SharedNamesRoot {
    @Path("s")
    public SharedNames shared() {
      return null;
    }
  }

  @Path("classes")
  static class ClassLocatorRoot {
    @Path("c")
    public Class<BadSub> sub() {
      return BadSub.class;
    }
  }

  @Path("objects")
  static class ObjectLocatorRoot {
    @Path("o")
    public Object sub() {
      return new BadSub();
    }

    @Path("any")
    public Class<?> any() {
      return BadSub.class;
    }
  }

  /** Reaches a node of {@link Tree} through two locators. */
  @Path("forest")
  static class Forest {
    @Path("oak")
    public Tree oak() {
      return new Tree();
    }

    @Path("elm")
    public Tree elm() {
      return new Tree();
    }
  }

  /** A limited method, reached through several locators and its own. */
  static class Tree {
    @GET
    @RateLimit(limits = "1/1h", name = "tree")
    public String get() {
      return "";
    }

    @Path("branch")
    public Tree branch() {
      return this;
    }
  }

  @Test
  void featureConfigure_followsLocatorsThroughCycles_toABadLimit() {
    assertThatThrownBy(
            () -> start(RateLimitFeature.builder().build(), Set.of(CyclicRoot.class), Set.of()))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageStartingWith("@RateLimit on " + BadSub.class.getName() + ".get: ")
        .hasMessageContaining("two per second");
  }

  @Test
  void featureConfigure_locatorReturningClassOfX_followed() {
    assertThatThrownBy(
            () ->
                start(RateLimitFeature.builder().build(), Set.of(ClassLocatorRoot.class), Set.of()))
        .hasMessageStartingWith("@RateLimit on " + BadSub.class.getName() + ".get: ");
  }

  @Test
  void featureConfigure_locatorReturningAnInterface_itsLimitsAndKeysChecked_notItsNames() {
    assertThatThrownBy(
            () ->
                start(
                    RateLimitFeature.builder().build(),
                    Set.of(ContractLocatorRoot.class),
                    Set.of()))
        .hasMessageStartingWith("@RateLimit on " + BadContract.class.getName() + ".get: ");
    assertThat(start(RateLimitFeature.builder().build(), Set.of(SharedNamesRoot.class), Set.of()))
        .isTrue();
  }

  /** A class that is not final, whose plain method only a subclass could serve. */
  static class OpenPlain {
    @RateLimit(limits = "1/1h")
    public String get() {
      return "";
    }
  }

  @Path("open")
  static class OpenLocatorRoot {
    @Path("o")
    public OpenPlain open() {
      return new OpenPlain() {};
    }
  }

  @Test
  void featureConfigure_locatorReturningAClassNotFinal_annotatedPlainMethod_failsNamingIt() {
    assertThatThrownBy(
            () ->
                start(RateLimitFeature.builder().build(), Set.of(OpenLocatorRoot.class), Set.of()))
        .hasMessageStartingWith(
            "@RateLimit on " + OpenPlain.class.getName() + ".get would limit nothing")
        .hasMessageContaining("no resource method");
  }

  /** A resource class that proxies and other subclasses extend. */
  static class Served {
    @GET
    public String get() {
      return "";
    }
  }

  /** Named as Spring's CGLIB names the proxy subclasses it generates. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served$$SpringCGLIB$$0 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Scala names an anonymous subclass: no proxy, a class of its own. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served$$anon$1 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Has a proxy's name, but extends another class than the one its name starts with. */
  @SuppressWarnings("checkstyle:TypeName")
  static class OpenPlain$$SpringCGLIB$$0 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Byte Buddy names the subclasses it generates. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served$ByteBuddy$x1Y2z3 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Hibernate names its entity proxies, which Byte Buddy generates. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served$HibernateProxy$x1Y2z3 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Javassist's proxy factory names its proxies. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served_$$_jvst1a_0 extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Quarkus ArC names the subclass of an intercepted bean. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served_Subclass extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Named as Quarkus ArC names the client proxy of a normal-scoped bean. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served_ClientProxy extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** ArC's suffix followed by more: a class of its own. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Served_SubclassOfMine extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  @Test
  void userMethod_proxySubclassOfItsUserClass_theUserClassMethod() throws Exception {
    for (Class<?> type :
        List.of(
            Served$$SpringCGLIB$$0.class,
            Served$ByteBuddy$x1Y2z3.class,
            Served$HibernateProxy$x1Y2z3.class,
            Served_$$_jvst1a_0.class,
            Served_Subclass.class,
            Served_ClientProxy.class)) {
      assertThat(RateLimitSearch.userMethod(type.getMethod("get")))
          .as("%s is a proxy of %s", type.getName(), Served.class.getName())
          .isEqualTo(Served.class.getMethod("get"));
    }
  }

  @Test
  void userMethod_subclassDefinedAtRunTime_anyName_theUserClassMethod() throws Exception {
    Class<?> generated =
        new ByteBuddy()
            .subclass(Served.class)
            .name(Served.class.getName() + "Woven")
            .method(ElementMatchers.named("get"))
            .intercept(SuperMethodCall.INSTANCE)
            .make()
            // defined in the class loader of Served, which has no class file for it
            .load(
                Served.class.getClassLoader(),
                ClassLoadingStrategy.UsingLookup.of(MethodHandles.lookup()))
            .getLoaded();

    assertThat(RateLimitSearch.userMethod(generated.getMethod("get")))
        .as("%s, which has no class file, is a proxy", generated.getName())
        .isEqualTo(Served.class.getMethod("get"));
  }

  @Test
  void userMethod_otherSubclassesWithDollarsInTheName_theirOwnMethod() throws Exception {
    for (Class<?> type :
        List.of(
            Served$$anon$1.class,
            OpenPlain$$SpringCGLIB$$0.class,
            Served_SubclassOfMine.class,
            Subclassed.class)) {
      assertThat(RateLimitSearch.userMethod(type.getMethod("get")))
          .as("%s is no proxy of %s", type.getName(), Served.class.getName())
          .isEqualTo(type.getMethod("get"));
    }
  }

  /** A subclass of the application's own, compiled from source: a class of its own. */
  static class Subclassed extends Served {
    @Override
    public String get() {
      return "";
    }
  }

  /** Its simple name cannot name a rule. */
  @SuppressWarnings("checkstyle:TypeName")
  static class Odd$Resource {
    @GET
    @RateLimit(limits = "1/1h")
    public String get() {
      return "";
    }
  }

  @Test
  void configure_defaultNameNoRuleCanTake_failsSayingToGiveOne() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    assertThatThrownBy(
            () -> configure(feature, Odd$Resource.class, Odd$Resource.class.getMethod("get")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("'Odd$Resource.get'")
        .hasMessageContaining("the default name")
        .hasMessageContaining("give the annotation a name");
  }

  @Test
  void featureConfigure_locatorReturningObjectOrAnyClass_notFollowed() {
    assertThat(start(RateLimitFeature.builder().build(), Set.of(ObjectLocatorRoot.class), Set.of()))
        .isTrue();
  }

  @Test
  void featureConfigure_oneMethodThroughManyLocators_isOneName_andTheRuntimeBuildsItsFilter()
      throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    assertThat(start(feature, Set.of(Forest.class), Set.of())).isTrue();
    configure(feature, Tree.class, Tree.class.getMethod("get"));
    configure(feature, Tree.class, Tree.class.getMethod("get"));

    assertThat(registered).hasSize(2).allMatch(MethodRateLimitFilter.class::isInstance);
    assertThat(registered.get(0)).isSameAs(registered.get(1));
  }

  private static String annotatedName(Class<?> resourceClass, Method method) {
    return RateLimitSearch.annotated(resourceClass, method).getAnnotation(RateLimit.class).name();
  }

  @Test
  void annotated_nearestDeclarationWins_superclassBeforeInterfaces() throws Exception {
    assertThat(annotatedName(Leaf.class, Leaf.class.getMethod("call", String.class)))
        .isEqualTo("middle");
    assertThat(annotatedName(Own.class, Own.class.getMethod("call", String.class)))
        .isEqualTo("own");
    assertThat(annotatedName(Plain.class, Plain.class.getMethod("call", String.class)))
        .isEqualTo("contract");
    assertThat(RateLimitSearch.annotated(Base.class, Base.class.getMethod("call", String.class)))
        .isNull();
  }

  @Test
  void annotated_genericInterfaceOrInheritedImplementation_found() throws Exception {
    Method put = StringStore.class.getDeclaredMethod("put", String.class);
    assertThat(annotatedName(StringStore.class, put)).isEqualTo("store");
    assertThat(annotatedName(Inheriting.class, Base.class.getMethod("call", String.class)))
        .isEqualTo("contract");
  }

  @Test
  void configure_annotationOnInterface_registersItsFilter() throws Exception {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    configure(feature, Plain.class, Plain.class.getMethod("call", String.class));

    assertThat(registered).hasSize(1).allMatch(MethodRateLimitFilter.class::isInstance);
  }

  @Test
  void configure_annotatedLocatorOrPlainMethod_failsNamingIt() {
    RateLimitFeature feature = RateLimitFeature.builder().build();

    assertThatThrownBy(() -> configure(feature, Locators.class, Locators.class.getMethod("get")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Locators.class.getName() + ".child")
        .hasMessageContaining("sub-resource locator");
    assertThatThrownBy(() -> configure(feature, Helpers.class, Helpers.class.getMethod("get")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining(Helpers.class.getName() + ".helper")
        .hasMessageContaining("no resource method");
    assertThat(registered).isEmpty();
  }
}
