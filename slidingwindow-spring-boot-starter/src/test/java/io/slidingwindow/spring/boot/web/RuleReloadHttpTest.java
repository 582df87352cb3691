package io.slidingwindow.spring.boot.web;

import org.springframework.boot.test.context.SpringBootTest;

/** {@link RuleReloadScenarios} in a servlet application on embedded Tomcat. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RuleReloadScenarios.App.class,
    properties = "spring.main.web-application-type=servlet")
class RuleReloadHttpTest extends RuleReloadScenarios {}
