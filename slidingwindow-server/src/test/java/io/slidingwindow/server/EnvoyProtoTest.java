package io.slidingwindow.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.EnumDescriptor;
import io.slidingwindow.server.envoy.config.core.v3.HeaderValue;
import io.slidingwindow.server.envoy.extensions.common.ratelimit.v3.RateLimitDescriptor;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitRequest;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitResponse;
import io.slidingwindow.server.envoy.service.ratelimit.v3.RateLimitServiceGrpc;
import io.slidingwindow.server.envoy.type.v3.RateLimitUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Pins the wire contract: full names and field numbers as in Envoy's API (checked against
 * envoyproxy/data-plane-api, the commit named in each .proto file). A change here breaks Envoy.
 */
class EnvoyProtoTest {

  @Test
  void service_hasEnvoysFullMethodName() {
    assertThat(RateLimitServiceGrpc.getShouldRateLimitMethod().getFullMethodName())
        .isEqualTo("envoy.service.ratelimit.v3.RateLimitService/ShouldRateLimit");
  }

  @Test
  void messages_haveEnvoysNamesAndFieldNumbers() {
    assertFields(
        RateLimitRequest.getDescriptor(),
        "envoy.service.ratelimit.v3.RateLimitRequest",
        Map.of("domain", 1, "descriptors", 2, "hits_addend", 3));
    assertFields(
        RateLimitResponse.getDescriptor(),
        "envoy.service.ratelimit.v3.RateLimitResponse",
        Map.of(
            "overall_code", 1,
            "statuses", 2,
            "response_headers_to_add", 3,
            "request_headers_to_add", 4,
            "raw_body", 5,
            "dynamic_metadata", 6,
            "quota", 7));
    assertFields(
        RateLimitResponse.RateLimit.getDescriptor(),
        "envoy.service.ratelimit.v3.RateLimitResponse.RateLimit",
        Map.of("name", 3, "requests_per_unit", 1, "unit", 2));
    assertFields(
        RateLimitResponse.DescriptorStatus.getDescriptor(),
        "envoy.service.ratelimit.v3.RateLimitResponse.DescriptorStatus",
        Map.of(
            "code", 1,
            "current_limit", 2,
            "limit_remaining", 3,
            "duration_until_reset", 4,
            "quota", 5));
    assertFields(
        RateLimitResponse.Quota.getDescriptor(),
        "envoy.service.ratelimit.v3.RateLimitResponse.Quota",
        Map.of("requests", 1, "valid_until", 2, "id", 3));
    assertFields(
        RateLimitDescriptor.getDescriptor(),
        "envoy.extensions.common.ratelimit.v3.RateLimitDescriptor",
        Map.of("entries", 1, "limit", 2, "hits_addend", 3));
    assertFields(
        RateLimitDescriptor.Entry.getDescriptor(),
        "envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.Entry",
        Map.of("key", 1, "value", 2));
    assertFields(
        RateLimitDescriptor.RateLimitOverride.getDescriptor(),
        "envoy.extensions.common.ratelimit.v3.RateLimitDescriptor.RateLimitOverride",
        Map.of("requests_per_unit", 1, "unit", 2));
    assertFields(
        HeaderValue.getDescriptor(),
        "envoy.config.core.v3.HeaderValue",
        Map.of("key", 1, "value", 2, "raw_value", 3));
    assertThat(
            RateLimitDescriptor.getDescriptor()
                .findFieldByName("hits_addend")
                .getMessageType()
                .getFullName())
        .isEqualTo("google.protobuf.UInt64Value");
  }

  @Test
  void enums_haveEnvoysNumbers() {
    assertEnum(
        RateLimitResponse.Code.getDescriptor(), Map.of("UNKNOWN", 0, "OK", 1, "OVER_LIMIT", 2));
    Map<String, Integer> units = new LinkedHashMap<>();
    units.putAll(
        Map.of("UNKNOWN", 0, "SECOND", 1, "MINUTE", 2, "HOUR", 3, "DAY", 4, "MONTH", 5, "YEAR", 6));
    assertEnum(RateLimitUnit.getDescriptor(), units);
    units.put("WEEK", 7);
    assertEnum(RateLimitResponse.RateLimit.Unit.getDescriptor(), units);
  }

  private static void assertFields(
      Descriptor descriptor, String fullName, Map<String, Integer> numbers) {
    assertThat(descriptor.getFullName()).isEqualTo(fullName);
    Map<String, Integer> actual = new LinkedHashMap<>();
    descriptor.getFields().forEach(f -> actual.put(f.getName(), f.getNumber()));
    assertThat(actual).as(fullName).containsExactlyInAnyOrderEntriesOf(numbers);
  }

  private static void assertEnum(EnumDescriptor descriptor, Map<String, Integer> numbers) {
    Map<String, Integer> actual = new LinkedHashMap<>();
    descriptor.getValues().forEach(v -> actual.put(v.getName(), v.getNumber()));
    assertThat(actual).as(descriptor.getFullName()).containsExactlyInAnyOrderEntriesOf(numbers);
  }
}
