package io.slidingwindow.spring.boot.web;

import org.springframework.boot.test.context.SpringBootTest;

/** {@link RuleReloadScenarios} in a reactive application on Reactor Netty. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = {RuleReloadScenarios.App.class, RuleTermsScenarios.Netty.class},
    properties = "spring.main.web-application-type=reactive")
class WebFluxRuleReloadTest extends RuleReloadScenarios {}
