package io.slidingwindow.spring.boot.web;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a cost header's text and a cost expression's result become permits. */
class RuleTermsTest {

  @Test
  void permitsOfText_integers_areThemselvesAndAnythingElseAsksNothing() {
    assertThat(RuleTerms.permitsOf("4")).isEqualTo(4);
    assertThat(RuleTerms.permitsOf(" +7 ")).isEqualTo(7);
    assertThat(RuleTerms.permitsOf((String) null)).isZero();
    assertThat(RuleTerms.permitsOf("")).isZero();
    assertThat(RuleTerms.permitsOf("-3")).isZero();
    assertThat(RuleTerms.permitsOf("1.5")).isZero();
    assertThat(RuleTerms.permitsOf("0x10")).isZero();
    assertThat(RuleTerms.permitsOf("abc")).isZero();
  }

  @Test
  void permitsOfText_moreDigitsThanALongHolds_asksTheMost() {
    assertThat(RuleTerms.permitsOf("99999999999999999999999")).isEqualTo(Long.MAX_VALUE);
  }

  @Test
  void permitsOfResult_numbersRoundUpTextReadsAsAHeaderNullAsksNothing() {
    assertThat(RuleTerms.permitsOf((Object) 3)).isEqualTo(3);
    assertThat(RuleTerms.permitsOf((Object) 5L)).isEqualTo(5);
    assertThat(RuleTerms.permitsOf((Object) 2.1)).isEqualTo(3);
    assertThat(RuleTerms.permitsOf((Object) new BigDecimal("1.0"))).isEqualTo(1);
    assertThat(RuleTerms.permitsOf((Object) Double.NaN)).isZero();
    assertThat(RuleTerms.permitsOf((Object) 1e300)).isEqualTo(Long.MAX_VALUE);
    assertThat(RuleTerms.permitsOf((Object) "6")).isEqualTo(6);
    assertThat(RuleTerms.permitsOf((Object) null)).isZero();
  }

  @Test
  void permitsOfResult_neitherNumberNorText_throwsSoTheRuleCostApplies() {
    assertThatThrownBy(() -> RuleTerms.permitsOf((Object) Boolean.TRUE))
        .isInstanceOf(IllegalStateException.class)
        .hasMessage("a cost expression must give a number, gave true");
    assertThatThrownBy(() -> RuleTerms.permitsOf((Object) List.of(1)))
        .isInstanceOf(IllegalStateException.class);
  }

  @Test
  void of_noConditionOrCost_isNone() {
    assertThat(RuleTerms.of("p", new SlidingWindowHttpProperties.Rule())).isSameAs(RuleTerms.NONE);
  }
}
