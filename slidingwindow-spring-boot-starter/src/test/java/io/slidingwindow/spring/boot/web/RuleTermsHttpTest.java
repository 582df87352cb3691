package io.slidingwindow.spring.boot.web;

import org.springframework.boot.test.context.SpringBootTest;

/** {@link RuleTermsScenarios} in a servlet application on embedded Tomcat. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = RuleTermsScenarios.App.class,
    properties = "spring.main.web-application-type=servlet")
class RuleTermsHttpTest extends RuleTermsScenarios {}
