package io.slidingwindow.spring.web;

import org.springframework.boot.test.context.SpringBootTest;

/** {@link CountStatusesScenarios} in a servlet application on embedded Tomcat. */
@SpringBootTest(
    webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT,
    classes = CountStatusesScenarios.App.class,
    properties = "spring.main.web-application-type=servlet")
class CountStatusesHttpTest extends CountStatusesScenarios {}
