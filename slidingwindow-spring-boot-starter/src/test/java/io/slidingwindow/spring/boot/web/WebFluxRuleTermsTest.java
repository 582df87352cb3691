package io.slidingwindow.spring.boot.web;

import org.springframework.boot.test.context.SpringBootTest;

/**
 * {@link RuleTermsScenarios} in a reactive application on Reactor Netty, where BlockHound (in this
 * JVM) would turn a blocking condition or cost into a 500.
 */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = {RuleTermsScenarios.App.class, RuleTermsScenarios.Netty.class},
    properties = "spring.main.web-application-type=reactive")
class WebFluxRuleTermsTest extends RuleTermsScenarios {}
